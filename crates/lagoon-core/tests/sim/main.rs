//! Integration tests of whole simulations, one file per topic.

mod common;
mod properties;
mod timing;
mod traces;
