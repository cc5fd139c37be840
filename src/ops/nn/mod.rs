//! The ops of `torch.nn.functional` written in tensor ops under PyTorch's nodes: each module
//! holds an op's checks (PyTorch's exception types and messages), dtype rules and body, so a Rust
//! caller gets the same op as Python (whose functions only parse arguments).

pub mod activation;
pub mod adaptive_max;
pub mod attention;
pub mod avg_pool;
pub mod distance;
pub mod dropout;
pub mod embedding;
pub mod linear;
pub mod loss;
pub mod max_pool;
pub mod normalization;
mod output_size;
pub mod pad;
pub mod resize;
pub mod rnn_cell;
pub mod rnn_layer;
#[cfg(test)]
mod test_support;
