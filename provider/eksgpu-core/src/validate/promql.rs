//! A PromQL query as far as its tokens and brackets go: what KEDA's Prometheus
//! scaler sends to `/api/v1/query` and Prometheus answers with "parse error" at
//! every poll. The tokens are those of prometheus/prometheus v3 promql/parser
//! lex.go (strings in `"`, `'` or backticks with `\` escapes, `#` comments to the
//! end of the line, identifiers with `:`, numbers and durations, operators); the
//! grammar itself (generated_parser.y) is not restated: function names, label
//! matcher semantics and types are Prometheus's to judge.

use super::{Validation, ValidationError};

const PROMQL: &str = "prometheus/prometheus v3.5 promql/parser/lex.go (tokens, strings, comments, brackets) and \
     generated_parser.y (operators need operands); queried by kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Open(char),
    Close(char),
    /// A binary operator (`+ - * / % ^ == != <= >= < > and or unless` are all binary;
    /// `+` and `-` may also be unary).
    Op(char),
    /// `=`, `=~`, `!~` of a label matcher, `@` of a modifier.
    Matcher,
    /// `:` of a subquery (`[1h:]` leaves the resolution out).
    Colon,
    Comma,
    /// An identifier, number, duration or string.
    Value {
        ident: bool,
    },
}

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            ' ' | '\t' | '\n' | '\r' => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' | '\'' | '`' => {
                let quote = c;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(format!("the string opened by {quote} is not closed")),
                        Some('\n') if quote != '`' => {
                            return Err("a quoted string runs past the end of the line".into());
                        }
                        Some('\\') if quote != '`' => i += 2,
                        Some(&q) if q == quote => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                out.push(Tok::Value { ident: false });
            }
            '(' | '{' | '[' => {
                out.push(Tok::Open(c));
                i += 1;
            }
            ')' | '}' | ']' => {
                out.push(Tok::Close(c));
                i += 1;
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1;
            }
            '=' if next == Some('=') => {
                out.push(Tok::Op('='));
                i += 2;
            }
            '=' if next == Some('~') => {
                out.push(Tok::Matcher);
                i += 2;
            }
            '=' | '@' => {
                out.push(Tok::Matcher);
                i += 1;
            }
            ':' => {
                out.push(Tok::Colon);
                i += 1;
            }
            '!' if next == Some('=') => {
                // `!=` is both a comparison and a label matcher; as an operator it needs operands.
                out.push(Tok::Op('!'));
                i += 2;
            }
            '!' if next == Some('~') => {
                out.push(Tok::Matcher);
                i += 2;
            }
            '<' | '>' => {
                out.push(Tok::Op(c));
                i += if next == Some('=') { 2 } else { 1 };
            }
            '+' | '-' | '*' | '/' | '%' | '^' => {
                out.push(Tok::Op(c));
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | ':')) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                out.push(match word.as_str() {
                    "and" | "or" | "unless" => Tok::Op('a'),
                    _ => Tok::Value { ident: true },
                });
            }
            c if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) => {
                // Numbers (1, 1.5e3, 0x1f, 1_000) and durations (5m, 1h30m, 1.5s).
                while i < chars.len() {
                    let d = chars[i];
                    let exponent_sign = matches!(d, '+' | '-') && matches!(chars[i - 1], 'e' | 'E');
                    if d.is_ascii_alphanumeric() || matches!(d, '.' | '_') || exponent_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                out.push(Tok::Value { ident: false });
            }
            other => return Err(format!("{other:?} is not a PromQL character here")),
        }
    }
    Ok(out)
}

/// A PromQL expression KEDA can send: not empty, strings closed, brackets
/// `()`, `{}`, `[]` balanced and nested, and every binary operator between
/// two operands (`sum(`, `rate(x[5m)`, `a +`, `* b`, `"abc` are refused).
pub fn promql(s: &str) -> Validation {
    let err = |why: String| {
        // Long queries are shown by their start only.
        let shown: String = s.chars().take(120).collect();
        let more = if shown.len() < s.len() { "…" } else { "" };
        Err(ValidationError::new(
            format!("{shown:?}{more} is not a PromQL expression Prometheus can parse: {why}."),
            "a PromQL expression such as sum(vllm:num_requests_waiting{site=\"onprem\"})",
            PROMQL,
        ))
    };
    let tokens = match lex(s) {
        Ok(t) => t,
        Err(why) => return err(why),
    };
    if tokens.is_empty() {
        return err("it is empty".into());
    }
    // Each open bracket, and whether it follows an identifier (`f(`, `m{`), which may leave it empty.
    let mut open: Vec<(char, bool)> = Vec::new();
    let mut prev: Option<Tok> = None;
    for &t in &tokens {
        // Where an operand must come: at the start, after an opening bracket, a comma or an operator.
        let expects_operand = matches!(
            prev,
            None | Some(Tok::Open(_) | Tok::Comma | Tok::Op(_) | Tok::Matcher | Tok::Colon)
        );
        match t {
            Tok::Open(c) => open.push((c, matches!(prev, Some(Tok::Value { ident: true })))),
            Tok::Close(c) => {
                let want = match c {
                    ')' => '(',
                    '}' => '{',
                    _ => '[',
                };
                let after_ident = match open.pop() {
                    Some((o, after_ident)) if o == want => after_ident,
                    Some((o, _)) => return err(format!("{c} closes {o}")),
                    None => return err(format!("{c} closes nothing")),
                };
                match prev {
                    Some(Tok::Op(_) | Tok::Matcher) => return err(format!("an operator has no operand before {c}")),
                    Some(Tok::Colon) if c != ']' => return err(format!("a colon has nothing after it before {c}")),
                    // `f()` calls a function without arguments, `m{}` selects without matchers.
                    Some(Tok::Open(_)) if c == ']' || !after_ident => {
                        return err(format!("{want}{c} holds nothing"));
                    }
                    _ => {}
                }
            }
            Tok::Op(o) if expects_operand && !matches!(o, '+' | '-') => {
                return err("a binary operator has no left operand".into());
            }
            Tok::Comma if expects_operand => return err("a comma has no item before it".into()),
            _ => {}
        }
        prev = Some(t);
    }
    if let Some((o, _)) = open.last() {
        return err(format!("{o} is never closed"));
    }
    if matches!(prev, Some(Tok::Op(_) | Tok::Matcher | Tok::Comma | Tok::Colon)) {
        return err("it ends with an operator".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::promql;

    #[test]
    fn queries_prometheus_parses() {
        for ok in [
            "sum(vllm:num_requests_waiting{site=\"onprem\"})",
            "up",
            "1",
            "-1",
            "time()",
            "up{}",
            "rate(http_requests_total{job=~\"api|web\", code!~'5..'}[5m])",
            "sum by (model) (rate(x[1h30m:1m] offset 5m @ 1609746000))",
            "a > bool b",
            "a + on(x) group_left(y) b",
            "a and b or c unless d",
            "histogram_quantile(0.9, sum by (le) (rate(b_bucket[5m])))",
            "x{a=\"b\",}",
            "1.5e+3 * -x",
            "0x1f",
            "`raw\nstring`",
            "sum(x) # waiting requests\n",
            "{\"metric.with.dots\"}",
            "x == -1",
            "x != 0",
            "max_over_time(rate(x[5m])[1h:])",
        ] {
            assert!(promql(ok).is_ok(), "{ok:?}: {:?}", promql(ok));
        }
    }

    #[test]
    fn refuses_what_prometheus_cannot_parse() {
        for bad in [
            "",
            "   ",
            "# only a comment",
            "sum(",
            "sum(x))",
            "rate(x[5m)",
            "x{a=\"b\"",
            "\"abc",
            "'abc\n'",
            "a +",
            "* b",
            "a + * b",
            "(",
            "x[]",
            "sum(x,)+",
            "x{a=}",
            "a ==",
            "a and",
            "x ; y",
            "x $ y",
            "()",
            "{}",
            "(,a)",
            "f(a,,b)",
            "x[5m:",
        ] {
            let e = promql(bad).unwrap_err();
            assert!(e.source.contains("lex.go"), "{bad:?}: {e}");
        }
        // Long queries are not echoed whole.
        let long = format!("sum({}", "x".repeat(70_000));
        assert!(promql(&long).unwrap_err().message.len() < 400);
    }
}
