// Package render shows values on one line for messages: Render in a Form (Whole for
// field path selectors, Short and Long for messages), and Brief, which cuts long values
// around the places where they differ from each other so that a conflict's message
// shows the difference and not the common part.
//
// # Shapes
//
// Render takes a *yaml.RNode or a plain decoded value (as encoding/json or RNode.Map
// decodes one) and a Form and returns one line. Brief takes the values of one message
// (nodes, nil where absent) and returns one line per value, in order; BriefTexts does
// the same for plain texts.
//
// # Rules
//
// A value of 60 bytes or fewer is shown whole; a longer one is cut to 60 bytes, with
// "..." where text is left out, never inside a UTF-8 sequence. Where values differ is
// found token by token (runs of ASCII letters, digits and non-ASCII bytes; each other
// byte a token of its own), bounded
// by maxDiffTokens.
//
// # Neighbours
//
// Package merge describes its conflicts and the parts of values merged inside with
// Brief and BriefTexts; packages plan and apply render field path selectors with
// Render (Whole); package results renders changes and field rule effects (Long,
// Short). It imports nothing of this module.
package render
