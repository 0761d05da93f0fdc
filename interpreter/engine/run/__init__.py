"""Running a game: the state and its run loop (runtime, frames, start), the layout of one player
count (layout), values, the standard library, the random numbers and the limits (values, stdlib,
rng, limits), set parameters (choices), the fixed action space (spaces), explicit chance (chance),
pickling (persist) and the facts learning code asks for (facts).  docs/design.md."""
