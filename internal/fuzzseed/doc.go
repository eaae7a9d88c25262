// Package fuzzseed finds the seed inputs of the fuzz and property tests in the
// repository itself: the YAML files of the e2e case packages (e2e/cases), the examples
// (examples/) and the functionConfig examples (fn-config-examples/). Tests read them at
// test time, so a new case package or example seeds the fuzzers without a corpus update.
//
// It is a test helper only: no production package imports it.
package fuzzseed
