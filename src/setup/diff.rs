//! `setup --dry-run`: what would change in a file, as a unified diff (what
//! `diff -u` and `git diff` print, three lines of context).
//!
//! Our own, because it is small: setup's edits touch one place in a file,
//! so the lines both versions share at the start and at the end are set
//! aside first, and only what lies between is compared, line by line, by a
//! longest common subsequence (past a size where that would be slow, the
//! middle is shown replaced whole, which is still a correct diff). The
//! `similar` crate did the same job for 100 KiB of binary.

use std::fmt::Write;
use std::path::Path;

const CONTEXT: usize = 3;
/// Above this many line pairs in the changed middle, no subsequence search.
const MAX_CELLS: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// The same line: old index, new index.
    Keep(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// The unified diff from `before` (`None`: the file does not exist) to
/// `after`; empty when nothing changes.
pub fn unified(path: &Path, before: Option<&str>, after: &str) -> String {
    let old: Vec<&str> = before.unwrap_or("").split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let ops = script(&old, &new);
    if before.is_some() && ops.iter().all(|op| matches!(op, Op::Keep(..))) {
        return String::new();
    }
    let name = path.display();
    let mut out = match before {
        Some(_) => format!("--- {name}\n+++ {name}\n"),
        None => format!("--- /dev/null\n+++ {name}\n"),
    };
    for hunk in hunks(&ops) {
        write_hunk(&mut out, &ops[hunk], &old, &new);
    }
    out
}

/// The edit script: keeps, deletions and insertions in file order.
fn script(old: &[&str], new: &[&str]) -> Vec<Op> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Keep(i, i)).collect();
    if a.len().saturating_mul(b.len()) <= MAX_CELLS {
        middle_by_lcs(a, b, prefix, &mut ops);
    } else {
        ops.extend((0..a.len()).map(|i| Op::Delete(prefix + i)));
        ops.extend((0..b.len()).map(|j| Op::Insert(prefix + j)));
    }
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    ops.extend((0..suffix).map(|k| Op::Keep(old_end + k, new_end + k)));
    ops
}

/// Appends the ops that turn `a` into `b` (offset by `start` in both files).
fn middle_by_lcs(a: &[&str], b: &[&str], start: usize, ops: &mut Vec<Op>) {
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * width + j] = if a[i] == b[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push(Op::Keep(start + i, start + j));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len()
            && (j == b.len() || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
        {
            // Deletions before insertions, as diff prints them.
            ops.push(Op::Delete(start + i));
            i += 1;
        } else {
            ops.push(Op::Insert(start + j));
            j += 1;
        }
    }
}

/// Ranges of `ops` to print: each change with its context; changes closer
/// than twice the context share a hunk.
fn hunks(ops: &[Op]) -> Vec<std::ops::Range<usize>> {
    let mut hunks: Vec<std::ops::Range<usize>> = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        if matches!(op, Op::Keep(..)) {
            continue;
        }
        let start = index.saturating_sub(CONTEXT);
        let end = (index + 1 + CONTEXT).min(ops.len());
        match hunks.last_mut() {
            Some(last) if start <= last.end => last.end = end,
            _ => hunks.push(start..end),
        }
    }
    hunks
}

fn write_hunk(out: &mut String, ops: &[Op], old: &[&str], new: &[&str]) {
    let (mut old_start, mut new_start) = (None, None);
    let (mut old_count, mut new_count) = (0, 0);
    for op in ops {
        match *op {
            Op::Keep(i, j) => {
                old_start.get_or_insert(i);
                new_start.get_or_insert(j);
                old_count += 1;
                new_count += 1;
            }
            Op::Delete(i) => {
                old_start.get_or_insert(i);
                old_count += 1;
            }
            Op::Insert(j) => {
                new_start.get_or_insert(j);
                new_count += 1;
            }
        }
    }
    let _ = writeln!(
        out,
        "@@ -{} +{} @@",
        range(old_start, old_count),
        range(new_start, new_count)
    );
    for op in ops {
        let (sign, line) = match *op {
            Op::Keep(i, _) => (' ', old[i]),
            Op::Delete(i) => ('-', old[i]),
            Op::Insert(j) => ('+', new[j]),
        };
        out.push(sign);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// `start,count` in 1-based lines, as diff and git print it: a count of
/// 1 is left out, and an empty side is `0,0`. (A side with no line in a hunk
/// is an empty file: any line in common would be context in the hunk.)
fn range(start: Option<usize>, count: usize) -> String {
    let first = start.map_or(0, |index| index + 1);
    match count {
        1 => first.to_string(),
        _ => format!("{first},{count}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(before: &str, after: &str) -> String {
        unified(Path::new("f"), Some(before), after)
    }

    #[test]
    fn a_new_file_is_diffed_against_dev_null() {
        let diff = unified(Path::new("/h/a.json"), None, "{\n}\n");
        assert_eq!(
            diff,
            "--- /dev/null\n+++ /h/a.json\n@@ -0,0 +1,2 @@\n+{\n+}\n"
        );
    }

    #[test]
    fn a_change_shows_context_and_nothing_when_equal() {
        let before = "a\nb\nc\nd\ne\nf\n";
        let diff = diff(before, "a\nb\nc\nd\nE\nf\n");
        assert_eq!(
            diff,
            "--- f\n+++ f\n@@ -2,5 +2,5 @@\n b\n c\n d\n-e\n+E\n f\n"
        );
        assert_eq!(unified(Path::new("f"), Some(before), before), "");
    }

    #[test]
    fn far_apart_changes_make_two_hunks_and_near_ones_one() {
        let before: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let edit = |changes: &[(usize, &str)]| -> String {
            (1..=20)
                .map(|n| match changes.iter().find(|(at, _)| *at == n) {
                    Some((_, text)) => format!("{text}\n"),
                    None => format!("{n}\n"),
                })
                .collect()
        };
        let after = edit(&[(2, "two"), (19, "nineteen")]);
        let diff = diff(&before, &after);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(
            diff.contains("@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n"),
            "{diff}"
        );
        assert!(
            diff.contains("@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20\n"),
            "{diff}"
        );
        let near = edit(&[(5, "five"), (10, "ten")]);
        assert_eq!(
            super::tests::diff(&before, &near).matches("@@ -").count(),
            1
        );
    }

    #[test]
    fn insertions_and_deletions_alone_name_the_line_before() {
        assert_eq!(
            diff("a\nb\n", "a\nx\nb\n"),
            "--- f\n+++ f\n@@ -1,2 +1,3 @@\n a\n+x\n b\n"
        );
        assert_eq!(
            diff("a\nx\nb\n", "a\nb\n"),
            "--- f\n+++ f\n@@ -1,3 +1,2 @@\n a\n-x\n b\n"
        );
        assert_eq!(diff("x\n", ""), "--- f\n+++ f\n@@ -1 +0,0 @@\n-x\n");
        assert_eq!(diff("", "x\n"), "--- f\n+++ f\n@@ -0,0 +1 @@\n+x\n");
    }

    #[test]
    fn a_missing_final_newline_is_marked() {
        assert_eq!(
            diff("a", "b\n"),
            "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
        );
    }

    #[test]
    fn the_lines_in_common_are_kept_inside_a_changed_middle() {
        let diff = diff("x\na\ny\nb\nz\n", "x\nA\ny\nB\nz\n");
        assert_eq!(
            diff,
            "--- f\n+++ f\n@@ -1,5 +1,5 @@\n x\n-a\n+A\n y\n-b\n+B\n z\n"
        );
    }

    #[test]
    fn a_middle_too_large_to_compare_is_shown_replaced_whole() {
        // 1,100 × 1,100 lines is past MAX_CELLS: deletions, then insertions.
        let old: String = (0..1100).map(|n| format!("old {n}\n")).collect();
        let new: String = (0..1100).map(|n| format!("new {n}\n")).collect();
        let before = format!("top\n{old}bottom\n");
        let after = format!("top\n{new}bottom\n");
        let diff = diff(&before, &after);
        assert!(
            diff.starts_with("--- f\n+++ f\n@@ -1,1102 +1,1102 @@\n top\n-old 0\n-old 1\n"),
            "{}",
            &diff[..80]
        );
        assert!(diff.contains("-old 1099\n+new 0\n"));
        assert!(diff.ends_with("+new 1099\n bottom\n"));
        assert_eq!(script(&lines(&before), &lines(&after)).len(), 2202);
    }

    fn lines(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }

    /// The longest common subsequence, the plain way.
    fn lcs_length(a: &[&str], b: &[&str]) -> usize {
        let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                table[i][j] = if a[i - 1] == b[j - 1] {
                    table[i - 1][j - 1] + 1
                } else {
                    table[i - 1][j].max(table[i][j - 1])
                };
            }
        }
        table[a.len()][b.len()]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, failure_persistence: None, ..Default::default() })]

        /// Any two texts: the script rebuilds both, keeps as many lines as
        /// can be kept, and its hunks add up to the files.
        #[test]
        fn the_script_is_minimal_and_rebuilds_both_files(
            old in proptest::collection::vec("[abc]\n", 0..9),
            new in proptest::collection::vec("[abc]\n", 0..9),
        ) {
            let (old, new): (Vec<&str>, Vec<&str>) = (old.iter().map(String::as_str).collect(), new.iter().map(String::as_str).collect());
            let ops = script(&old, &new);
            let (mut rebuilt_old, mut rebuilt_new, mut kept) = (Vec::new(), Vec::new(), 0);
            for op in &ops {
                match *op {
                    Op::Keep(i, j) => {
                        proptest::prop_assert_eq!(old[i], new[j]);
                        rebuilt_old.push(old[i]);
                        rebuilt_new.push(new[j]);
                        kept += 1;
                    }
                    Op::Delete(i) => rebuilt_old.push(old[i]),
                    Op::Insert(j) => rebuilt_new.push(new[j]),
                }
            }
            proptest::prop_assert_eq!(&rebuilt_old, &old);
            proptest::prop_assert_eq!(&rebuilt_new, &new);
            proptest::prop_assert_eq!(kept, lcs_length(&old, &new));
            let text = unified(Path::new("f"), Some(&old.concat()), &new.concat());
            let minus = text.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).count();
            let plus = text.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count();
            proptest::prop_assert_eq!((minus, plus), (old.len() - kept, new.len() - kept));
        }
    }
}
