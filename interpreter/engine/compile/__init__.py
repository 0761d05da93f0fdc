"""Compiling a rulebook, once: declarations, expressions and steps written as Python text and
compiled (compiler, exprs, steps, flowcode, codegen, dependencies, types, model; bidding
written out as plain steps before, bounds read from the invariants).  docs/design.md."""
