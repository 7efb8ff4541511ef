use super::*;

#[test]
fn cron_schedules() {
    for ok in [
        "0 6 * * *",
        "0 20 * * 1-5",
        "*/15 0 1,15 * MON",
        "0 9 * JAN-mar sun,sat",
        "30 * * * *",
        "  0  6 * * *  ",
        "0-59/5 0-23 1-31 1-12 0-6",
        "5/10 * * * ?",
        "0 6 ? * *",
        // robfig/cron v3.0.1 takes these (empty items skipped, a star ignores its range).
        "1,,2 * * * *",
        "*-5 * * * *",
    ] {
        assert!(cron_schedule(ok).is_ok(), "{ok}");
    }
    for bad in [
        "",
        "0 6 * *",
        "0 0 6 * * *",
        "@daily",
        "@every 1h",
        "CRON_TZ=Asia/Seoul 0 6 * * *",
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
        "a * * * *",
        "-1 * * * *",
        "* * * * MONDAY",
        "TZ=UTC",
    ] {
        let e = cron_schedule(bad).unwrap_err();
        assert_eq!(e.source, CRON, "{bad}");
    }
}

#[test]
fn time_zones() {
    for ok in [
        "Asia/Seoul",
        "UTC",
        "America/Argentina/Buenos_Aires",
        "Etc/GMT+9",
        "America/Port-au-Prince",
        "EST5EDT",
        // Links (backward names) load too: LoadLocation opens their zoneinfo files.
        "US/Pacific",
        "Asia/Calcutta",
        "Etc/UTC",
        "America/Ciudad_Juarez",
    ] {
        assert!(time_zone(ok).is_ok(), "{ok}");
    }
    // The citation names the bundled release.
    assert_eq!(TZDB_VERSION, "2026f");
    assert!(TZ.contains(TZDB_VERSION));
    // A lookup, not a shape: well-formed names that name no zone are refused.
    for bad in ["Mars/Olympus", "Asia/Atlantis", "Etc/GMT+15", "America/NewYork"] {
        let e = time_zone(bad).unwrap_err();
        assert!(e.message.contains("2026f"), "{e}");
    }
    // Case matters on the operator's file system; the message gives the spelling.
    let e = time_zone("asia/seoul").unwrap_err();
    assert!(e.message.contains("\"Asia/Seoul\""), "{e}");
    for bad in [
        "",
        "Local",
        "/etc/localtime",
        "../etc/passwd",
        "Asia//Seoul",
        "Asia/Seoul/",
        "Asia/-x",
        "UTC+9 ",
        "Asia/Seo ul",
        "9/x",
    ] {
        assert!(time_zone(bad).is_err(), "{bad}");
    }
}

#[test]
fn prometheus_addresses() {
    for ok in [
        "http://prometheus.monitoring:9090",
        "https://prometheus.example.com",
        "http://prometheus-server.monitoring.svc.cluster.local/prometheus",
        "HTTP://10.0.0.1:9090",
        "http://[::1]:9090",
        "http://[fd00::1]",
    ] {
        assert!(prometheus_address(ok).is_ok(), "{ok}");
    }
    let e = prometheus_address("http://user:secret@prometheus:9090").unwrap_err();
    assert!(e.message.contains("authenticationRef"), "{e}");
    assert!(
        !e.to_string().contains("secret") && e.message.contains("http://***@prometheus:9090"),
        "{e}"
    );
    for bad in [
        "",
        "prometheus:9090",
        "ftp://prometheus",
        "http://",
        "http://:9090",
        "http://prometheus:0",
        "http://prometheus:99999",
        "http://prometheus:port",
        "http://prometheus/api?x=1",
        "http://prometheus#x",
        "http://prom etheus",
        "http://[zz]:9090",
        "http://[::1]x",
    ] {
        assert!(prometheus_address(bad).is_err(), "{bad}");
    }
}
