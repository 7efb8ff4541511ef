//! Diagnostics of a bounded size. A detail often echoes what the user wrote (`{value:?}`), and
//! values can be 64 KiB of user data or a file read in with `file()`: echoed whole, one error
//! fills the terminal and hides the path and the fix. Quoted runs are shortened first (they
//! are the echoed values), then the whole text if it is still too long.

/// Quoted values longer than this are shortened to their start and end.
const QUOTED_MAX: usize = 200;
/// Characters kept at the start and at the end of a shortened quoted value.
const QUOTED_HEAD: usize = 120;
const QUOTED_TAIL: usize = 40;
/// The most characters a summary and a detail keep.
pub(crate) const SUMMARY_MAX: usize = 512;
pub(crate) const DETAIL_MAX: usize = 4096;

/// `text` with quoted runs over [`QUOTED_MAX`] characters shortened, then cut at `max`
/// characters, each cut saying how much it left out.
pub(crate) fn bounded(text: String, max: usize) -> String {
    if text.chars().count() <= max.min(QUOTED_MAX) {
        return text;
    }
    let shortened = shorten_quoted(&text);
    let n = shortened.chars().count();
    if n <= max {
        return shortened;
    }
    let mut out: String = shortened.chars().take(max).collect();
    out.push_str(&format!("… ({} more characters left out)", n - max));
    out
}

/// Every `"…"` run (Rust `{:?}` and JSON quoting: a backslash escapes the next character) over
/// [`QUOTED_MAX`] characters, as its head, a count of what was left out, and its tail.
fn shorten_quoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len().min(8192));
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '"' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        // Find the closing quote; an unclosed quote runs to the end.
        let start = i + 1;
        let mut j = start;
        while j < chars.len() && chars[j] != '"' {
            j += if chars[j] == '\\' { 2 } else { 1 };
        }
        let end = j.min(chars.len());
        let inner = &chars[start..end];
        out.push('"');
        if inner.len() > QUOTED_MAX {
            out.extend(&inner[..QUOTED_HEAD]);
            out.push_str(&format!(
                "…[{} characters left out]…",
                inner.len() - QUOTED_HEAD - QUOTED_TAIL
            ));
            out.extend(&inner[inner.len() - QUOTED_TAIL..]);
        } else {
            out.extend(inner);
        }
        if j < chars.len() {
            out.push('"');
        }
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        let s = "Pool \"gpu\" has a 20Gi root volume.".to_owned();
        assert_eq!(bounded(s.clone(), DETAIL_MAX), s);
    }

    #[test]
    fn a_long_echoed_value_keeps_its_ends_and_the_advice_after_it() {
        let value = format!("{}END", "x".repeat(64 * 1024));
        let detail = format!("{value:?} is not a Kubernetes quantity. Use 200Gi.");
        let out = bounded(detail, DETAIL_MAX);
        assert!(out.len() < 400, "{}", out.len());
        assert!(out.starts_with("\"xxx"), "{out}");
        assert!(out.contains("characters left out]…"), "{out}");
        assert!(
            out.ends_with("xEND\" is not a Kubernetes quantity. Use 200Gi."),
            "{out}"
        );
    }

    #[test]
    fn escaped_quotes_stay_inside_their_value() {
        let value = format!("a\"{}", "y".repeat(500));
        let out = bounded(format!("{value:?} and \"short\""), DETAIL_MAX);
        assert!(out.ends_with(" and \"short\""), "{out}");
        assert!(out.len() < 300, "{out}");
    }

    #[test]
    fn long_text_without_quotes_is_cut_saying_so() {
        let out = bounded("z".repeat(10_000), DETAIL_MAX);
        assert!(out.ends_with("(5904 more characters left out)"), "{out}");
        // Multi-byte characters are cut on character boundaries.
        let out = bounded("é".repeat(600), SUMMARY_MAX);
        assert!(out.starts_with("éé"));
    }
}
