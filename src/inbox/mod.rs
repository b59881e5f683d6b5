//! The inbox (DESIGN §10): one place for every question from every asker on
//! the machine, answered in one page or from another terminal, kept in a
//! SQLite store so that a restart loses nothing.

pub mod state;
pub mod store;
