//! Integration tests of whole simulations, one file per topic.

mod common;
mod dssd;
mod golden;
mod layout;
mod live;
mod network;
mod properties;
mod robustness;
mod suspend;
mod timing;
mod traces;
mod writegc;
