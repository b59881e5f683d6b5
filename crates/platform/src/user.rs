//! Who runs this process, for `answeredBy.name` on the local faces.

/// The operating system's user: `USER`, else `LOGNAME` (Unix), else
/// `USERNAME` (Windows); on Unix with none of them, `uid N`. Not the user
/// database (getpwuid would link glibc's NSS into the static binary, see
/// [`super::paths`]).
pub fn name() -> String {
    name_from(|key| std::env::var(key).ok())
}

fn name_from(var: impl Fn(&str) -> Option<String>) -> String {
    ["USER", "LOGNAME", "USERNAME"]
        .into_iter()
        .filter_map(&var)
        .map(|value| ask_user_core::text::fold_line(&value))
        .find(|value| !value.is_empty())
        .map(|value| value.chars().take(100).collect())
        .unwrap_or_else(fallback)
}

#[cfg(unix)]
fn fallback() -> String {
    // SAFETY: geteuid has no preconditions and cannot fail.
    format!("uid {}", unsafe { libc::geteuid() })
}

#[cfg(not(unix))]
fn fallback() -> String {
    String::from("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `name` reads this process's environment (cargo-mutants: it was
    /// replaceable by any constant while only `name_from` was tested).
    #[test]
    fn the_name_is_this_processs_environments() {
        let expected = name_from(|key| std::env::var(key).ok());
        assert_eq!(name(), expected);
        assert!(!name().is_empty());
    }

    #[test]
    fn the_first_set_variable_names_the_user_on_one_clean_line() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(name_from(env(&[("USER", "ada"), ("LOGNAME", "x")])), "ada");
        assert_eq!(
            name_from(env(&[("USER", " \t"), ("LOGNAME", "grace")])),
            "grace"
        );
        assert_eq!(name_from(env(&[("USERNAME", "ad\nmin")])), "ad min");
        let long = "x".repeat(300);
        assert_eq!(name_from(|_: &str| Some(long.clone())).len(), 100);
        assert!(!name_from(env(&[])).is_empty());
        #[cfg(unix)]
        assert!(name_from(env(&[])).starts_with("uid "));
    }
}
