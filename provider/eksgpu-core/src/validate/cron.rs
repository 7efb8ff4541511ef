//! robfig/cron v3.0.1 `Parser.Parse` (parser.go, spec.go), the cron parser of
//! both Karpenter's disruption budgets (`ParseStandard`, kubernetes-sigs/karpenter
//! v1.14.1 pkg/apis/v1/nodepool.go) and KEDA's cron scaler (`NewParser(Minute |
//! Hour | Dom | Month | Dow)`, kedacore/keda v2.20.2 pkg/scalers/cron_scaler.go).
//! Written to accept exactly what it accepts, quirks included: empty list items
//! are skipped (`1,,2`), `*` ignores what follows a `-` (`*-5`), `N/step` runs
//! from N to the field's maximum, numbers may carry a `+` or leading zeros.

/// A field's bounds and names (spec.go `bounds`).
struct Bounds {
    name: &'static str,
    min: u64,
    max: u64,
    names: &'static [&'static str],
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// Minute, hour, day of month, month, day of week: the five fields of the standard spec.
const FIELDS: [Bounds; 5] = [
    Bounds {
        name: "minute",
        min: 0,
        max: 59,
        names: &[],
    },
    Bounds {
        name: "hour",
        min: 0,
        max: 23,
        names: &[],
    },
    Bounds {
        name: "day of month",
        min: 1,
        max: 31,
        names: &[],
    },
    Bounds {
        name: "month",
        min: 1,
        max: 12,
        names: &MONTHS,
    },
    Bounds {
        name: "day of week",
        min: 0,
        max: 6,
        names: &DAYS,
    },
];

/// `parseDescriptor`'s names.
pub(crate) const DESCRIPTORS: [&str; 7] = [
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
];

/// `strconv.Atoi`: an optional sign and decimal digits (no `_`), within int64.
fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// `mustParseInt`: Atoi, then no negative numbers.
fn must_parse_int(s: &str) -> Result<u64, String> {
    match atoi(s) {
        None => Err(format!("{s:?} is not a number")),
        Some(n) if n < 0 => Err(format!("negative number {n} not allowed")),
        Some(n) => Ok(n.unsigned_abs()),
    }
}

/// `parseIntOrName`: a name (compared after Go's `strings.ToLower`) or a number.
fn int_or_name(s: &str, b: &Bounds) -> Result<u64, String> {
    let lower = s.to_lowercase();
    if let Some(i) = b.names.iter().position(|n| *n == lower) {
        // Months count from 1, days from 0: the name's value is min + position.
        return Ok(b.min + i as u64);
    }
    must_parse_int(s)
}

/// `getRange`: `*`, `?`, `a` or `a-b`, each with an optional `/step`.
fn range(expr: &str, b: &Bounds) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end) = if low_and_high[0] == "*" || low_and_high[0] == "?" {
        // robfig does not look past the star: `*-5` is `*`.
        (b.min, b.max)
    } else {
        let start = int_or_name(low_and_high[0], b)?;
        match low_and_high.len() {
            1 => (start, start),
            2 => (start, int_or_name(low_and_high[1], b)?),
            _ => return Err(format!("too many hyphens in {expr:?}")),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            // "N/step" means "N-max/step".
            if single {
                end = b.max;
            }
            step
        }
        _ => return Err(format!("too many slashes in {expr:?}")),
    };
    if start < b.min {
        return Err(format!("{start} is below the minimum {}", b.min));
    }
    if end > b.max {
        return Err(format!("{end} is above the maximum {}", b.max));
    }
    if start > end {
        return Err(format!("the range {start}-{end} runs backwards"));
    }
    if step == 0 {
        return Err("the step must be a positive number".into());
    }
    Ok(())
}

/// `getField`: comma-separated ranges, empty items skipped (`strings.FieldsFunc`).
fn field(value: &str, b: &Bounds) -> Result<(), String> {
    for expr in value.split(',').filter(|e| !e.is_empty()) {
        range(expr, b).map_err(|why| format!("the {} field {value:?}: {why}", b.name))?;
    }
    Ok(())
}

/// Whether Go's `time.LoadLocation` finds the zone (`""` is UTC, `Local` the process's).
fn loads(zone: &str) -> bool {
    zone.is_empty() || zone == "UTC" || zone == "Local" || super::scaler::time_zone(zone).is_ok()
}

/// `Parser.Parse` with the five standard fields, descriptors (`@daily`,
/// `@every 1h`) if `descriptors`, and the `TZ=` / `CRON_TZ=` prefix; `Err` says why not.
pub(crate) fn parse(spec: &str, descriptors: bool) -> Result<(), String> {
    if spec.is_empty() {
        return Err("the schedule is empty".into());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        // robfig slices up to the first space; without one it panics (a crash, not a schedule).
        let (Some(space), Some(eq)) = (spec.find(' '), spec.find('=')) else {
            return Err("a TZ= prefix must be followed by a space and the schedule".into());
        };
        let zone = &spec[eq + 1..space];
        if !loads(zone) {
            return Err(format!("{zone:?} is not a time zone"));
        }
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        if !descriptors {
            return Err("descriptors such as @daily are not accepted here".into());
        }
        if DESCRIPTORS.contains(&spec) {
            return Ok(());
        }
        return match spec.strip_prefix("@every ") {
            Some(d) => crate::duration::go::parse_duration(d)
                .map(|_| ())
                .map_err(|_| format!("{d:?} is not a Go duration")),
            None => Err(format!("{spec:?} is not a descriptor")),
        };
    }
    // strings.Fields splits on Unicode white space, as split_whitespace does.
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != FIELDS.len() {
        return Err(format!("it has {} fields, not 5", fields.len()));
    }
    for (value, b) in fields.iter().zip(FIELDS.iter()) {
        field(value, b)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn accepts_what_robfig_accepts() {
        for ok in [
            "0 6 * * *",
            "*/15 0 1,15 * MON",
            "0 9 * JAN-mar sun,sat",
            "0-59/5 0-23 1-31 1-12 0-6",
            "5/10 * * * ?",
            "  0  6 * * *  ",
            // Quirks of parser.go: empty list items are dropped, a star ignores its range,
            // Atoi takes '+' and leading zeros, an all-empty list sets no bits without error.
            "1,,2 * * * *",
            "*-5 * * * *",
            "?-x-y * * * *",
            "+5 007 * * *",
            ", * * * *",
            // strings.Fields splits on Unicode white space.
            "0\u{2028}6 * *\u{3000}*",
        ] {
            assert_eq!(parse(ok, false), Ok(()), "{ok:?}");
        }
        for ok in [
            "@daily",
            "@every 1h30m",
            "@every 1.5h",
            "TZ=UTC @hourly",
            "CRON_TZ=Asia/Seoul 0 6 * * *",
        ] {
            assert_eq!(parse(ok, true), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn refuses_what_robfig_refuses() {
        for bad in [
            "",
            "0 6 * *",
            "0 0 6 * * *",
            "60 * * * *",
            "* 24 * * *",
            "* * 0 * *",
            "* * 32 * *",
            "* * * 0 *",
            "* * * 13 *",
            "* * * * 7",
            "5-1 * * * *",
            "*/0 * * * *",
            "1/2/3 * * * *",
            "1-2-3 * * * *",
            "-1 * * * *",
            "a * * * *",
            "1_0 * * * *",
            "99999999999999999999 * * * *",
            "* * * * MONDAY",
            "*/-1 * * * *",
        ] {
            assert!(parse(bad, true).is_err(), "{bad:?}");
        }
        assert!(parse("@daily", false).is_err());
        for bad in [
            "@every",
            "@every 5",
            "@every 1d",
            "@dailyx",
            "TZ=Mars/Olympus 0 6 * * *",
            "TZ=UTC",
        ] {
            assert!(parse(bad, true).is_err(), "{bad:?}");
        }
    }
}
