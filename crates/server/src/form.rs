//! The question widgets every page shares (the answer page, the inbox, the
//! MCP app, the links' pages): one implementation of every kind in
//! `form.js`, and its styles, light and dark, in `form.css`. A page puts them
//! in place of its `/*__FORM_JS__*/` and `/*__FORM_CSS__*/` markers.

/// The widgets' script.
pub const JS: &str = include_str!("form.js");
/// The widgets' styles.
pub const CSS: &str = include_str!("form.css");
