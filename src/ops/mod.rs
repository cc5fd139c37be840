//! Op declarations: each op is written down once here, and the enum, dispatch, gradient, device
//! op code and Python bindings are generated from that one declaration (see `docs/ADDING_AN_OP.md`);
//! and the geometry of the ops that slide windows (convolution, pooling), which every backend shares.

pub mod attention_dims;
pub mod binary;
pub mod composite;
pub mod conv_geometry;
pub(crate) mod grad;
pub mod nn;
pub(crate) mod pointwise2;
pub mod pool_geometry;
pub mod reduce;
pub mod reduction;
pub mod unary;
