//! The merge's properties (`json/fuzz.rs`) on Codex's `config.toml`:
//! arbitrary bytes, token soup, random TOML in random layouts (the servers
//! as `[mcp_servers.NAME]` tables, a `[mcp_servers]` table, dotted keys or
//! one inline table; wrong kinds; comments, CRLF, every kind of value and
//! key quoting), and those files with a few bytes changed. toml_edit's own
//! parse is the reference.

use proptest::prelude::*;
use toml_edit::{Item, TableLike};

use crate::setup::json::fuzz::{Model, Tree, apply, check_merge, edit, launch, property};
use crate::setup::{ENTRY, Host};

const CONTAINER: &str = "mcp_servers";

fn item_tree(item: &Item) -> Tree {
    match item {
        Item::None => Tree::Null,
        Item::Value(value) => value_tree(value),
        Item::Table(table) => table_tree(table),
        Item::ArrayOfTables(tables) => {
            Tree::Arr(tables.iter().map(|table| table_tree(table)).collect())
        }
    }
}

fn table_tree(table: &dyn TableLike) -> Tree {
    Tree::Obj(
        table
            .iter()
            .map(|(key, item)| (key.to_string(), item_tree(item)))
            .collect(),
    )
}

fn value_tree(value: &toml_edit::Value) -> Tree {
    use toml_edit::Value as V;
    match value {
        V::String(s) => Tree::Str(s.value().clone()),
        V::Integer(i) => Tree::Num(i.value().to_string()),
        V::Float(f) => Tree::Num(format!("{:?}", f.value())),
        V::Boolean(b) => Tree::Bool(*b.value()),
        V::Datetime(d) => Tree::Date(d.value().to_string()),
        V::Array(items) => Tree::Arr(items.iter().map(value_tree).collect()),
        V::InlineTable(table) => Tree::Obj(
            table
                .iter()
                .map(|(key, value)| (key.to_string(), value_tree(value)))
                .collect(),
        ),
    }
}

/// toml_edit's own parse. Setup may edit the file when the servers and the
/// entry are tables (`[…]` or `{ … }`) where they are there.
fn toml_reference(text: &str, container: &str, _written: &[&str]) -> Option<Model> {
    let document = toml_edit::Document::parse(text).ok()?;
    let editable = match document.get(container) {
        None => true,
        Some(servers) => servers
            .as_table_like()
            .is_some_and(|servers| servers.get(ENTRY).is_none_or(|entry| entry.is_table_like())),
    };
    Some(Model {
        tree: table_tree(document.as_table()),
        editable,
    })
}

/// A TOML value to render.
#[derive(Debug, Clone)]
enum V {
    Str(String),
    Int(&'static str),
    Float(&'static str),
    Bool(bool),
    Date(&'static str),
    Arr(Vec<V>),
    Inline(Vec<(Vec<String>, V)>),
}

/// One line (or block) of a file.
#[derive(Debug, Clone)]
enum Line {
    Pair(Vec<String>, V),
    Table(Vec<String>),
    Tables(Vec<String>),
    Comment,
    Blank,
}

fn toml_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "", "x", "ask_user", "mcp", "/bin/ask_user", "C:\\bin", "say \"hi\"", "it's", "é",
            "# not a comment", "a\nb", "\t", "\u{1}", "\u{7f}", "😀", "'''", "\"\"\"",
        ])
        .prop_map(String::from),
        1 => "(?s).{0,8}",
    ]
}

fn toml_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            CONTAINER, ENTRY, "command", "args", "tool_timeout_sec", "env", "model", "a", "b",
            "", "ask user", "a.b", "é", "Ask_User",
        ])
        .prop_map(String::from),
        2 => "[a-z]{1,4}",
        1 => toml_text(),
    ]
}

fn toml_path() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(toml_name(), 1..4)
}

fn toml_value() -> impl Strategy<Value = V> {
    let leaf = prop_oneof![
        3 => toml_text().prop_map(V::Str),
        1 => prop::sample::select(vec![
            "0", "42", "-17", "+99", "1_000", "0xDEAD_beef", "0o755", "0b1101", "1860",
            "9223372036854775807", "-9223372036854775808",
        ])
        .prop_map(V::Int),
        1 => prop::sample::select(vec![
            "3.14", "-0.01", "5e+22", "1e06", "-2E-2", "224_617.445_991", "inf", "-inf", "nan",
            "+nan", "-0.0", "1860.0",
        ])
        .prop_map(V::Float),
        1 => any::<bool>().prop_map(V::Bool),
        1 => prop::sample::select(vec![
            "1979-05-27T07:32:00Z", "1979-05-27T00:32:00.999999-07:00", "1979-05-27 07:32:00",
            "1979-05-27", "07:32:00", "00:32:00.999",
        ])
        .prop_map(V::Date),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(V::Arr),
            prop::collection::vec((prop::collection::vec(toml_name(), 1..3), inner), 0..3)
                .prop_map(V::Inline),
        ]
    })
}

fn path(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|part| part.to_string()).collect()
}

/// Keys of an entry: what setup writes (right or wrong) and what it keeps.
fn entry_pairs() -> impl Strategy<Value = Vec<(Vec<String>, V)>> {
    let key = prop_oneof![
        3 => prop::sample::select(vec!["command", "args", "tool_timeout_sec", "env", "cwd", "enabled"])
            .prop_map(|key| vec![key.to_string()]),
        1 => prop::collection::vec(toml_name(), 1..3),
    ];
    let value = prop_oneof![
        Just(V::Str("/usr/local/bin/ask_user".into())),
        Just(V::Arr(
            ["mcp", "--timeout", "300"]
                .map(|a| V::Str(a.into()))
                .to_vec()
        )),
        Just(V::Int("1860")),
        Just(V::Float("1860.0")),
        toml_value(),
    ];
    prop::collection::vec((key, value), 0..4)
}

/// The servers, in one of the ways TOML can hold them (or a wrong kind).
fn servers() -> impl Strategy<Value = Vec<Line>> {
    let name = prop_oneof![2 => Just(ENTRY.to_string()), 1 => "[a-z]{1,4}"];
    let tables = prop::collection::vec((name.clone(), entry_pairs()), 0..3).prop_map(|servers| {
        let mut lines = Vec::new();
        for (name, pairs) in servers {
            lines.push(Line::Table(vec![CONTAINER.into(), name]));
            lines.extend(pairs.into_iter().map(|(key, value)| Line::Pair(key, value)));
        }
        lines
    });
    let one_table = prop::collection::vec((name.clone(), entry_pairs(), any::<bool>()), 0..3)
        .prop_map(|servers| {
            let mut lines = vec![Line::Table(path(&[CONTAINER]))];
            for (name, pairs, inline) in servers {
                if inline {
                    lines.push(Line::Pair(vec![name], V::Inline(pairs)));
                } else {
                    for (key, value) in pairs {
                        let mut key = key;
                        key.insert(0, name.clone());
                        lines.push(Line::Pair(key, value));
                    }
                }
            }
            lines
        });
    let dotted = prop::collection::vec((name.clone(), entry_pairs()), 0..3).prop_map(|servers| {
        let mut lines = Vec::new();
        for (name, pairs) in servers {
            for (key, value) in pairs {
                let mut full = path(&[CONTAINER]);
                full.push(name.clone());
                full.extend(key);
                lines.push(Line::Pair(full, value));
            }
        }
        lines
    });
    let inline = prop::collection::vec((name, entry_pairs()), 0..3).prop_map(|servers| {
        let items = servers
            .into_iter()
            .map(|(name, pairs)| (vec![name], V::Inline(pairs)))
            .collect();
        vec![Line::Pair(path(&[CONTAINER]), V::Inline(items))]
    });
    let wrong = prop_oneof![
        toml_value().prop_map(|value| vec![Line::Pair(path(&[CONTAINER]), value)]),
        toml_value().prop_map(|value| vec![Line::Pair(path(&[CONTAINER, ENTRY]), value)]),
        entry_pairs().prop_map(|pairs| {
            let mut lines = vec![Line::Tables(path(&[CONTAINER]))];
            lines.extend(pairs.into_iter().map(|(key, value)| Line::Pair(key, value)));
            lines
        }),
        entry_pairs().prop_map(|pairs| {
            let mut lines = vec![Line::Tables(path(&[CONTAINER, ENTRY]))];
            lines.extend(pairs.into_iter().map(|(key, value)| Line::Pair(key, value)));
            lines
        }),
        // Only a table below the entry: the entry itself is implicit.
        entry_pairs().prop_map(|pairs| {
            let mut lines = vec![Line::Table(path(&[CONTAINER, ENTRY, "env"]))];
            lines.extend(pairs.into_iter().map(|(key, value)| Line::Pair(key, value)));
            lines
        }),
    ];
    prop_oneof![3 => tables, 2 => one_table, 2 => dotted, 2 => inline, 2 => wrong]
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        4 => (toml_path(), toml_value()).prop_map(|(key, value)| Line::Pair(key, value)),
        1 => toml_path().prop_map(Line::Table),
        1 => toml_path().prop_map(Line::Tables),
        1 => Just(Line::Comment),
        1 => Just(Line::Blank),
    ]
}

/// A file's lines: others, with the servers somewhere among them (once or twice).
fn toml_file() -> impl Strategy<Value = Vec<Line>> {
    (
        prop::collection::vec(line(), 0..8),
        prop::collection::vec((servers(), any::<usize>()), 0..3),
    )
        .prop_map(|(mut lines, blocks)| {
            for (block, at) in blocks {
                let at = at % (lines.len() + 1);
                lines.splice(at..at, block);
            }
            lines
        })
}

/// The surface choices of one rendering, from a seed.
struct Layout {
    state: u64,
    newline: &'static str,
}

impl Layout {
    fn next(&mut self, below: u64) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state % below
    }

    fn pick(&mut self, choices: &[&'static str]) -> &'static str {
        choices[self.next(choices.len() as u64) as usize]
    }

    fn space(&mut self) -> &'static str {
        self.pick(&["", " ", " ", "  ", "\t"])
    }

    fn newline(&mut self) -> &'static str {
        // Now and then a line ends the other way.
        if self.next(16) == 0 {
            self.pick(&["\n", "\r\n"])
        } else {
            self.newline
        }
    }

    /// A basic string, with some characters escaped that need not be.
    fn basic(&mut self, text: &str, out: &mut String) {
        out.push('"');
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' if self.next(2) == 0 => out.push_str("\\t"),
                c if c.is_control() && c != '\t' => out.push_str(&format!("\\u{:04X}", c as u32)),
                c if self.next(12) == 0 => match self.next(2) {
                    0 if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04X}", c as u32)),
                    _ => out.push_str(&format!("\\U{:08X}", c as u32)),
                },
                c => out.push(c),
            }
        }
        out.push('"');
    }

    fn string(&mut self, text: &str, out: &mut String) {
        let plain = !text.chars().any(|c| c.is_control() && c != '\t');
        match self.next(5) {
            0 if plain && !text.contains('\'') => {
                out.push('\'');
                out.push_str(text);
                out.push('\'');
            }
            1 if !text
                .chars()
                .any(|c| c.is_control() && c != '\t' && c != '\n')
                && !text.contains("'''")
                && !text.ends_with('\'') =>
            {
                // A newline right after the opening quotes is not part of it.
                out.push_str("'''");
                if self.next(2) == 0 {
                    out.push_str(self.newline);
                }
                out.push_str(&text.replace('\n', self.newline));
                out.push_str("'''");
            }
            _ => self.basic(text, out),
        }
    }

    fn key(&mut self, key: &str, out: &mut String) {
        let bare = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        match self.next(6) {
            _ if !bare => self.string_key(key, out),
            0 => self.string_key(key, out),
            _ => out.push_str(key),
        }
    }

    fn string_key(&mut self, key: &str, out: &mut String) {
        let plain = !key.chars().any(|c| c.is_control() && c != '\t');
        if plain && !key.contains('\'') && self.next(2) == 0 {
            out.push('\'');
            out.push_str(key);
            out.push('\'');
        } else {
            self.basic(key, out);
        }
    }

    fn dotted(&mut self, path: &[String], out: &mut String) {
        for (index, part) in path.iter().enumerate() {
            if index > 0 {
                out.push_str(self.pick(&["", "", " "]));
                out.push('.');
                out.push_str(self.pick(&["", "", " "]));
            }
            self.key(part, out);
        }
    }

    fn value(&mut self, value: &V, out: &mut String) {
        match value {
            V::Str(text) => self.string(text, out),
            V::Int(n) | V::Float(n) | V::Date(n) => out.push_str(n),
            V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            V::Arr(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    out.push_str(self.array_gap());
                    self.value(item, out);
                    out.push_str(self.array_gap());
                    if index + 1 < items.len() || self.next(5) == 0 {
                        out.push(',');
                    }
                }
                out.push_str(self.array_gap());
                out.push(']');
            }
            V::Inline(pairs) => {
                out.push('{');
                for (index, (key, value)) in pairs.iter().enumerate() {
                    out.push_str(self.space());
                    self.dotted(key, out);
                    out.push_str(self.space());
                    out.push('=');
                    out.push_str(self.space());
                    self.value(value, out);
                    if index + 1 < pairs.len() {
                        out.push(',');
                    }
                }
                out.push_str(self.space());
                out.push('}');
            }
        }
    }

    fn array_gap(&mut self) -> &'static str {
        match self.next(8) {
            0 => "\n  ",
            1 => " # in an array\n",
            2 => "\r\n",
            _ => self.space(),
        }
    }

    fn comment(&mut self, out: &mut String) {
        if self.next(4) == 0 {
            out.push_str(self.space());
            out.push_str(self.pick(&["# note", "#", "# [mcp_servers.x] = 1", "# é"]));
        }
    }

    fn render(&mut self, lines: &[Line]) -> String {
        let mut out = String::new();
        if self.next(10) == 0 {
            out.push('\u{feff}');
        }
        for line in lines {
            out.push_str(self.pick(&["", "", "", " ", "\t"]));
            match line {
                Line::Pair(key, value) => {
                    self.dotted(key, &mut out);
                    out.push_str(self.space());
                    out.push('=');
                    out.push_str(self.space());
                    self.value(value, &mut out);
                    self.comment(&mut out);
                }
                Line::Table(path) | Line::Tables(path) => {
                    let double = matches!(line, Line::Tables(_));
                    out.push_str(if double { "[[" } else { "[" });
                    out.push_str(self.pick(&["", "", " "]));
                    self.dotted(path, &mut out);
                    out.push_str(self.pick(&["", "", " "]));
                    out.push_str(if double { "]]" } else { "]" });
                    self.comment(&mut out);
                }
                Line::Comment => out.push_str(self.pick(&["# a note", "#", "## twice", "# é 😀"])),
                Line::Blank => {}
            }
            out.push_str(self.newline());
        }
        if self.next(4) == 0 {
            // No newline at the end.
            let trimmed = out.trim_end_matches(['\r', '\n']).len();
            out.truncate(trimmed);
        }
        out
    }
}

fn render_toml(lines: &[Line], seed: u64) -> String {
    let mut layout = Layout {
        state: seed | 1,
        newline: "\n",
    };
    if layout.next(4) == 0 {
        layout.newline = "\r\n";
    }
    layout.render(lines)
}

const TOML_TOKENS: [&str; 34] = [
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    "=",
    ",",
    ".",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "\\",
    "#",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "mcp_servers",
    "ask_user",
    "command",
    "args",
    "\"x\"",
    "1",
    "1.5",
    "true",
    "1979-05-27",
    "[mcp_servers.ask_user]",
    "[mcp_servers]",
    "mcp_servers.ask_user.command",
    "\u{feff}",
    "\u{0}",
];

/// Any bytes at all: mostly refused, never a panic.
#[test]
fn toml_arbitrary_bytes() {
    let bytes = prop::collection::vec(any::<u8>(), 0..256);
    property(
        "toml_arbitrary_bytes",
        (bytes, launch()),
        |(bytes, launch)| check_merge(Host::Codex, &bytes, &launch, toml_reference, None),
    );
}

/// TOML's tokens in any order.
#[test]
fn toml_token_soup() {
    let tokens = prop::collection::vec(prop::sample::select(TOML_TOKENS.to_vec()), 0..24);
    property("toml_token_soup", (tokens, launch()), |(tokens, launch)| {
        check_merge(
            Host::Codex,
            tokens.concat().as_bytes(),
            &launch,
            toml_reference,
            None,
        )
    });
}

/// Random config.toml files in random layouts.
#[test]
fn toml_random_files() {
    property(
        "toml_random_files",
        (toml_file(), any::<u64>(), launch()),
        |(lines, seed, launch)| {
            let text = render_toml(&lines, seed);
            check_merge(Host::Codex, text.as_bytes(), &launch, toml_reference, None)
        },
    );
}

/// Those files with a few bytes changed.
#[test]
fn toml_edited_files() {
    let edits = prop::collection::vec(edit(TOML_TOKENS.to_vec()), 1..4);
    let inputs = (toml_file(), any::<u64>(), edits, launch());
    property(
        "toml_edited_files",
        inputs,
        |(lines, seed, edits, launch)| {
            let text = render_toml(&lines, seed);
            check_merge(
                Host::Codex,
                &apply(text.into_bytes(), &edits),
                &launch,
                toml_reference,
                None,
            )
        },
    );
}
