// Package help is the binary's --help text (Text): what krm-merge does, how hosts run
// it, every functionConfig key from config.Keys (the table Load accepts, so the help
// cannot drift from it) and the per-object annotations (field rules, identity
// overrides). main.go sets it as the command's long help.
package help
