//! The `captop` binary.
fn main() {}
