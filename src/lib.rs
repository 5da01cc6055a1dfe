//! cutover: tells a team whether it is safe to move a MySQL application onto another database.
//!
//! Data flows one way: log → events ([`capture`]) → workload ([`workload`]) → digest and the later
//! stages → report ([`report`]). Stages meet only in the plain data types of [`workload`].

pub mod audit;
pub mod capture;
pub mod db;
pub mod digest;
pub mod profile;
pub mod render;
pub mod replay;
pub mod schema;
pub mod sql;
pub mod verify;
pub mod workload;
