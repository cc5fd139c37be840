//! The ops of `torch.nn.functional` written in tensor ops under PyTorch's nodes: each module
//! holds an op's checks (PyTorch's exception types and messages), dtype rules and body, so a Rust
//! caller gets the same op as Python (whose functions only parse arguments).

pub mod attention;
pub mod distance;
pub mod dropout;
pub mod embedding;
pub mod linear;
pub mod loss;
pub mod normalization;
