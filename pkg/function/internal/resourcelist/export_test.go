package resourcelist

// DropInputs makes l written as if its input items were not kept (keep.go): every
// item encoded, as kyaml's writer writes it. For benchmarks of keeping's cost.
func DropInputs(l *List) { l.in = nil }
