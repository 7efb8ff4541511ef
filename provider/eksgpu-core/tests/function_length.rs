//! No production function of eksgpu-core is longer than [`MAX_LINES`] lines: rules are one
//! function per code, and a long function is where a new input hides. Measured on the
//! source itself, from the `fn` line to the closing brace, with comments, strings and
//! character literals blanked first so their braces do not count. Not measured: test code
//! (`tests.rs`, any module or item behind `#[cfg(test)]`) and `const`/`static` tables, which
//! hold no `fn` bodies.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 120;

/// A function and its length in lines.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// The source with comments, string, byte-string and character literals replaced by spaces
/// (newlines kept, so line numbers stay).
fn blank(src: &str) -> Vec<char> {
    let s: Vec<char> = src.chars().collect();
    let mut out = s.clone();
    let mut i = 0;
    let blank_range = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(s.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < s.len() {
        let at = |k: usize| s.get(i + k).copied();
        match (s[i], at(1)) {
            ('/', Some('/')) => {
                let end = (i..s.len()).find(|&j| s[j] == '\n').unwrap_or(s.len());
                blank_range(&mut out, i, end);
                i = end;
            }
            ('/', Some('*')) => {
                // Block comments nest in Rust.
                let (mut depth, mut j) = (0usize, i);
                while j < s.len() {
                    if s[j] == '/' && s.get(j + 1) == Some(&'*') {
                        depth += 1;
                        j += 2;
                    } else if s[j] == '*' && s.get(j + 1) == Some(&'/') {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank_range(&mut out, i, j);
                i = j;
            }
            ('r' | 'b', _) if i == 0 || !ident(s[i - 1]) => {
                // r"..", r#".."#, b"..", br#".."#, b'..'.
                let mut j = i + 1;
                if s[i] == 'b' && at(1) == Some('r') {
                    j += 1;
                }
                let raw = s[i] == 'r' || at(1) == Some('r');
                let hashes = (j..s.len()).take_while(|&k| s[k] == '#').count();
                j += hashes;
                if raw && s.get(j) == Some(&'"') {
                    let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                    let end = (j + 1..s.len())
                        .find(|&k| s[k..].starts_with(&close))
                        .map_or(s.len(), |k| k + close.len());
                    blank_range(&mut out, i, end);
                    i = end;
                } else if s[i] == 'b' && matches!(at(1), Some('"' | '\'')) {
                    let end = quoted_end(&s, i + 1);
                    blank_range(&mut out, i, end);
                    i = end;
                } else {
                    i += 1;
                }
            }
            ('"', _) => {
                let end = quoted_end(&s, i);
                blank_range(&mut out, i, end);
                i = end;
            }
            ('\'', _) => {
                // A character literal ('x', '\n', '\u{7f}'), not a lifetime ('a, 'static).
                let end = if at(1) == Some('\\') {
                    Some(quoted_end(&s, i))
                } else if at(2) == Some('\'') {
                    Some(i + 3)
                } else {
                    None
                };
                match end {
                    Some(end) => {
                        blank_range(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The index after the literal opened by the quote at `open` (escapes skipped).
fn quoted_end(s: &[char], open: usize) -> usize {
    let quote = s[open];
    let mut j = open + 1;
    while j < s.len() && s[j] != quote {
        j += if s[j] == '\\' { 2 } else { 1 };
    }
    j + 1
}

/// The index of the brace closing the one at `open`.
fn closing(code: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The end of the item starting at `from`: its closing brace, or its `;` when it has no body.
fn item_end(code: &[char], from: usize) -> usize {
    let mut parens = 0i32;
    for j in from..code.len() {
        match code[j] {
            '(' | '[' => parens += 1,
            ')' | ']' => parens -= 1,
            ';' if parens == 0 => return j,
            '{' if parens == 0 => return closing(code, j),
            _ => {}
        }
    }
    code.len()
}

fn word_at(code: &[char], i: usize, word: &str) -> bool {
    let ident = |c: &char| c.is_alphanumeric() || *c == '_';
    let w: Vec<char> = word.chars().collect();
    code[i..].starts_with(&w) && (i == 0 || !ident(&code[i - 1])) && code.get(i + w.len()).is_none_or(|c| !ident(c))
}

fn line_of(code: &[char], i: usize) -> usize {
    1 + code[..i].iter().filter(|c| **c == '\n').count()
}

/// What one file holds: its functions outside test code, and the modules it declares
/// behind `#[cfg(test)]` (`#[cfg(test)] mod tests;`), whose files are test code.
fn scan(src: &str) -> (Vec<Function>, Vec<String>) {
    let code = blank(src);
    let cfg_test: Vec<char> = "#[cfg(test)]".chars().collect();
    let (mut functions, mut test_modules) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < code.len() {
        if code[i..].starts_with(&cfg_test) {
            let item = i + cfg_test.len();
            let end = item_end(&code, item);
            let text: String = code[item..end.min(code.len())].iter().collect();
            let words: Vec<&str> = text.split_whitespace().collect();
            if let Some(k) = words.iter().position(|w| *w == "mod")
                && let Some(name) = words.get(k + 1)
                && code.get(end) == Some(&';')
            {
                test_modules.push(name.trim_end_matches(';').to_owned());
            }
            i = end + 1;
        } else if word_at(&code, i, "fn") {
            let rest: String = code[i + 2..].iter().take(80).collect();
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let end = item_end(&code, i);
            if !name.is_empty() && code.get(end) == Some(&'}') {
                let line = line_of(&code, i);
                functions.push(Function {
                    name,
                    line,
                    lines: line_of(&code, end) - line + 1,
                });
            }
            // Nested functions are measured on their own too.
            i += 2;
        } else {
            i += 1;
        }
    }
    (functions, test_modules)
}

/// The file and directory of module `name` declared in `file` (`a.rs` declares `a/name.rs`,
/// `lib.rs` and `mod.rs` declare `name.rs` next to them).
fn module_paths(file: &Path, name: &str) -> [PathBuf; 2] {
    let dir = file.parent().unwrap_or(Path::new("."));
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let base = if stem == "lib" || stem == "mod" || stem == "main" {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    [base.join(format!("{name}.rs")), base.join(name)]
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let read = |e: std::io::Error| -> ! { panic!("{}: {e}", dir.display()) };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| read(e))
        .map(|e| e.unwrap_or_else(|e| read(e)).path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every production function of the crate's `src`, longest first, with its file.
fn production_functions(src: &Path) -> Vec<(PathBuf, Function)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut scanned = Vec::new();
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    for file in files {
        let (functions, test_modules) =
            scan(&std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display())));
        for m in test_modules {
            test_only.extend(module_paths(&file, &m));
        }
        scanned.push((file, functions));
    }
    let mut out: Vec<(PathBuf, Function)> = scanned
        .into_iter()
        .filter(|(file, _)| file.file_name().is_none_or(|n| n != "tests.rs"))
        .filter(|(file, _)| !test_only.iter().any(|t| file.starts_with(t)))
        .flat_map(|(file, functions)| functions.into_iter().map(move |f| (file.clone(), f)))
        .collect();
    out.sort_by_key(|(_, f)| std::cmp::Reverse(f.lines));
    out
}

fn crate_dir() -> PathBuf {
    // The running test's package directory (see acceptance-tests' repo_root for why not env!).
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

#[test]
fn no_production_function_is_longer_than_120_lines() {
    let src = crate_dir().join("src");
    let all = production_functions(&src);
    // The scan found the crate's functions (a broken scan would find none and pass).
    assert!(all.len() > 200, "only {} functions found", all.len());
    for known in ["check_node_strategy", "recommend", "check_sharing_pool", "node_pool"] {
        assert!(all.iter().any(|(_, f)| f.name == known), "{known} not found");
    }
    let longest: Vec<String> = all
        .iter()
        .take(8)
        .map(|(p, f)| {
            format!(
                "{} {}:{} {}",
                f.lines,
                p.strip_prefix(&src).unwrap_or(p).display(),
                f.line,
                f.name
            )
        })
        .collect();
    println!("longest production functions:\n{}", longest.join("\n"));
    let too_long: Vec<String> = all
        .iter()
        .filter(|(_, f)| f.lines > MAX_LINES)
        .map(|(p, f)| format!("{}:{} {} ({} lines)", p.display(), f.line, f.name, f.lines))
        .collect();
    assert!(
        too_long.is_empty(),
        "functions over {MAX_LINES} lines (split them into one function per rule or step):\n{}",
        too_long.join("\n")
    );
}

#[test]
fn the_measure_counts_from_fn_to_the_closing_brace_and_ignores_braces_in_literals() {
    let body = "    let x = 1;\n".repeat(119);
    let src = format!(
        "/// doc {{\nfn long() {{\n{body}}}\nfn short(a: &str) -> char {{\n    let s = \"}}\"; let r = r#\"{{\"#;\n    // }}\n    /* {{ /* }} */ */ let c = '{{';\n    'b'\n}}\nfn lifetimes<'a>(x: &'a str) -> &'a str {{ x }}\nfn declared();\n"
    );
    let (functions, _) = scan(&src);
    let lengths: Vec<(&str, usize)> = functions.iter().map(|f| (f.name.as_str(), f.lines)).collect();
    assert_eq!(lengths, [("long", 121), ("short", 6), ("lifetimes", 1)]);
}

#[test]
fn test_code_is_not_measured() {
    let long = format!("fn long() {{\n{}}}\n", "    let x = 1;\n".repeat(200));
    let src = format!(
        "#[cfg(test)]\nmod tests {{\n{long}}}\n#[cfg(test)]\nmod fixture;\n#[cfg(test)]\n{long}fn kept() {{}}\n"
    );
    let (functions, test_modules) = scan(&src);
    assert_eq!(functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["kept"]);
    assert_eq!(test_modules, ["fixture"]);
    assert_eq!(
        module_paths(Path::new("src/lib.rs"), "fixture"),
        [PathBuf::from("src/fixture.rs"), PathBuf::from("src/fixture")]
    );
    assert_eq!(
        module_paths(Path::new("src/rules.rs"), "tests")[0],
        PathBuf::from("src/rules/tests.rs")
    );
}
