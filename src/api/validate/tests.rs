//! Unit tests of the figure checks, against hand-built reports with known faults.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::capacity::{expected_pct, is_dial_code};
use super::*;
use crate::api::model::{
    CapacityStatus, DailyCapacity, MinutesCapacity, PortCapacity, RouteCapacity, TotalMinutes,
    TotalPorts, Totals, Utilization,
};
use chrono::NaiveDate;

fn now() -> DateTime<Utc> {
    "2026-11-22T06:00:00Z".parse().unwrap()
}

fn route(slug: &str, total: i64, sold: i64, ports: (i64, i64)) -> RouteCapacity {
    RouteCapacity {
        route: slug.into(),
        name: format!("Route {slug}").into(),
        dial_code: "+234".into(),
        capacity_minutes: MinutesCapacity {
            total,
            sold,
            remaining: total - sold,
        },
        ports: PortCapacity {
            total: ports.0,
            sold: ports.1,
            available: ports.0 - ports.1,
        },
        filled_pct: expected_pct(sold.into(), total.into()).unwrap_or(0) as i64,
    }
}

fn capacity() -> CapacityReport {
    let routes = vec![
        route("ng-lagos", 1000, 333, (10, 4)),
        route("br-sao-paulo", 3, 2, (2, 2)),
        route("empty", 0, 0, (0, 0)),
    ];
    CapacityReport {
        generated_at: now(),
        unit_notes: None,
        totals: Totals {
            routes: Some(3),
            capacity_minutes: Some(TotalMinutes {
                total: Some(1003),
                sold: Some(335),
                remaining: Some(668),
            }),
            ports: Some(TotalPorts {
                total: Some(12),
                sold: Some(6),
                available: Some(6),
            }),
            filled_pct: Some(33),
        },
        routes,
    }
}

fn utilization() -> UtilizationReport {
    UtilizationReport {
        generated_at: now(),
        date: NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        minutes_run_today: 1000,
        daily_capacity_minutes: DailyCapacity {
            sold: Some(3000),
            active: Some(2000),
            paused: Some(1000),
        },
        utilization: Utilization {
            utilized_minutes: Some(1000),
            available_minutes: Some(2000),
            utilization_pct: Some(33.3),
        },
        capacity_status: CapacityStatus {
            active_ports: Some(20),
            paused_ports: Some(10),
            provisioning_ports: Some(1),
        },
    }
}

fn cap(r: &CapacityReport) -> Vec<String> {
    capacity_warnings_at(r, now())
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn util(r: &UtilizationReport) -> Vec<String> {
    utilization_warnings_at(r, now())
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn clean_reports_have_no_warnings() {
    assert_eq!(cap(&capacity()), Vec::<String>::new());
    assert_eq!(util(&utilization()), Vec::<String>::new());
    let mut bare = utilization();
    bare.daily_capacity_minutes = DailyCapacity::default();
    bare.utilization = Utilization::default();
    bare.capacity_status = CapacityStatus::default();
    assert_eq!(util(&bare), Vec::<String>::new());
    let mut no_totals = capacity();
    no_totals.totals = Totals::default();
    assert_eq!(cap(&no_totals), Vec::<String>::new());
}

#[test]
fn rounding_rule_is_half_up_with_tolerance() {
    assert_eq!(expected_pct(1, 8), Some(13)); // 12.5 rounds up
    assert_eq!(expected_pct(1, 3), Some(33));
    assert_eq!(expected_pct(2, 3), Some(67));
    assert_eq!(expected_pct(0, 0), Some(0));
    assert_eq!(expected_pct(5, 4), None);
    let mut r = capacity();
    r.routes[0].filled_pct = 34; // 33.3 → 33, off by one is tolerated
    r.totals.filled_pct = Some(32);
    assert_eq!(cap(&r), Vec::<String>::new());
    r.routes[0].filled_pct = 35;
    assert_eq!(
        cap(&r),
        ["routes[0] (ng-lagos): filled_pct 35 but sold 333 / total 1,000 is 33 %, which is shown"]
    );
}

#[test]
fn sold_over_total() {
    let mut r = capacity();
    r.routes[1].capacity_minutes = MinutesCapacity {
        total: 100,
        sold: 120,
        remaining: -20,
    };
    r.routes[1].filled_pct = 100;
    let w = cap(&r);
    assert!(
        w.contains(&"routes[1] (br-sao-paulo): minutes sold 120 > total 100".to_owned()),
        "{w:?}"
    );
    assert!(w.iter().any(|w| w.contains("remaining is negative (-20)")));
}

#[test]
fn remaining_and_available_must_add_up() {
    let mut r = capacity();
    r.routes[0].capacity_minutes.remaining = 600;
    r.routes[0].ports.available = 7;
    r.totals = Totals::default();
    assert_eq!(
        cap(&r),
        [
            "routes[0] (ng-lagos): minutes remaining 600 ≠ total 1,000 − sold 333 = 667",
            "routes[0] (ng-lagos): ports available 7 ≠ total 10 − sold 4 = 6",
        ]
    );
}

#[test]
fn ports_sold_over_total() {
    let mut r = capacity();
    r.routes[0].ports = PortCapacity {
        total: 4,
        sold: 5,
        available: -1,
    };
    r.totals = Totals::default();
    let w = cap(&r);
    assert!(w.contains(&"routes[0] (ng-lagos): ports sold 5 > total 4".to_owned()));
    assert!(w.contains(&"routes[0] (ng-lagos): ports.available is negative (-1)".to_owned()));
}

#[test]
fn negative_counts_each_named() {
    let mut r = capacity();
    r.routes[2].capacity_minutes = MinutesCapacity {
        total: -5,
        sold: -5,
        remaining: 0,
    };
    r.routes[2].filled_pct = -1;
    r.totals = Totals::default();
    let w = cap(&r);
    for needle in [
        "capacity_minutes.total is negative (-5)",
        "capacity_minutes.sold is negative (-5)",
        "filled_pct is negative (-1)",
        "filled_pct -1 is outside 0–100",
    ] {
        assert!(w.iter().any(|w| w.contains(needle)), "{needle}: {w:?}");
    }
}

#[test]
fn filled_pct_out_of_range() {
    let mut r = capacity();
    r.routes[2].filled_pct = 101;
    r.totals.filled_pct = Some(250);
    assert_eq!(
        cap(&r),
        [
            "routes[2] (empty): filled_pct 101 is outside 0–100; sold 0 / total 0 is 0 %, which is shown",
            "totals: filled_pct 250 is outside 0–100; sold 335 / total 1,003 is 33 %, which is shown",
        ]
    );
}

#[test]
fn dial_codes() {
    for good in ["+1", "+234", "+44"] {
        assert!(is_dial_code(good), "{good}");
    }
    for bad in ["", "+", "234", "+23a", "++1", "+ 1", "+１"] {
        assert!(!is_dial_code(bad), "{bad}");
    }
    let mut r = capacity();
    r.routes[0].dial_code = "234\u{1b}[2J".into();
    assert_eq!(
        cap(&r),
        ["routes[0] (ng-lagos): dial_code `234\u{FFFD}` is not + followed by digits"]
    );
}

#[test]
fn duplicate_slugs() {
    let mut r = capacity();
    r.routes[1].route = "ng-lagos".into();
    r.routes[2].route = "ng-lagos".into();
    assert_eq!(
        cap(&r),
        [
            "routes[1] (ng-lagos): duplicate route slug, also routes[0]",
            "routes[2] (ng-lagos): duplicate route slug, also routes[0]",
        ]
    );
}

#[test]
fn totals_must_be_the_sums() {
    let mut r = capacity();
    r.totals.routes = Some(4);
    r.totals.capacity_minutes = Some(TotalMinutes {
        total: Some(1004),
        sold: None,
        remaining: Some(668),
    });
    r.totals.ports = Some(TotalPorts {
        total: None,
        sold: Some(7),
        available: Some(-6),
    });
    assert_eq!(
        cap(&r),
        [
            "totals: routes 4 but the report lists 3",
            "totals.capacity_minutes: total 1,004 ≠ sum over routes 1,003",
            "totals.ports: available is negative (-6)",
            "totals.ports: sold 7 ≠ sum over routes 6",
            "totals.ports: available -6 ≠ sum over routes 6",
        ]
    );
    r.totals = capacity().totals;
    r.totals.filled_pct = Some(50);
    assert_eq!(
        cap(&r),
        ["totals: filled_pct 50 but sold 335 / total 1,003 is 33 %, which is shown"]
    );
}

#[test]
fn sums_never_overflow() {
    let mut r = capacity();
    r.routes = vec![
        route("a", i64::MAX, 0, (i64::MAX, 0)),
        route("b", i64::MAX, 0, (i64::MAX, 0)),
    ];
    r.routes[0].filled_pct = 0;
    r.totals = Totals {
        routes: Some(2),
        capacity_minutes: Some(TotalMinutes {
            total: Some(i64::MAX),
            sold: Some(0),
            remaining: Some(i64::MIN),
        }),
        ports: None,
        filled_pct: Some(0),
    };
    let w = cap(&r);
    assert!(
        w.iter().any(|w| w
            .contains("total 9,223,372,036,854,775,807 ≠ sum over routes 18446744073709551614")),
        "{w:?}"
    );
    let mut extreme = capacity();
    extreme.routes[0].capacity_minutes = MinutesCapacity {
        total: i64::MIN,
        sold: i64::MAX,
        remaining: i64::MIN,
    };
    assert!(!cap(&extreme).is_empty());
}

#[test]
fn hostile_slug_is_sanitized_and_cut() {
    let mut r = capacity();
    r.routes[0].route = format!("\u{1b}]0;pwn\u{7}{}", "x".repeat(100_000)).into();
    r.routes[0].dial_code = "0".repeat(100_000).into();
    let w = capacity_warnings_at(&r, now());
    assert_eq!(w.len(), 1, "{w:?}");
    let shown = w[0].to_string();
    assert!(!shown.chars().any(char::is_control), "{shown:?}");
    assert!(shown.chars().count() < 120, "{}", shown.len());
}

#[test]
fn generated_at_far_in_the_future() {
    let mut r = capacity();
    r.generated_at = now() + TimeDelta::minutes(5);
    assert_eq!(cap(&r), Vec::<String>::new());
    r.generated_at = now() + TimeDelta::hours(2);
    assert_eq!(
        cap(&r),
        ["generated_at: 2 h in the future — check this machine's clock or the service's"]
    );
    let mut u = utilization();
    u.generated_at = now() + TimeDelta::days(400);
    assert_eq!(util(&u).len(), 1);
}

#[test]
fn utilized_must_equal_minutes_run_today() {
    let mut u = utilization();
    u.utilization.utilized_minutes = Some(999);
    let w = util(&u);
    assert_eq!(
        w[0],
        "utilization: utilized_minutes 999 ≠ minutes_run_today 1,000"
    );
}

#[test]
fn utilization_pct_within_a_tenth() {
    let mut u = utilization();
    u.utilization.utilization_pct = Some(33.4); // 33.33…: within 0.1
    assert_eq!(util(&u), Vec::<String>::new());
    u.utilization.utilization_pct = Some(34.0);
    assert_eq!(
        util(&u),
        ["utilization: utilization_pct 34 but utilized 1,000 / sold 3,000 is 33.3%"]
    );
    u.daily_capacity_minutes = DailyCapacity {
        sold: Some(0),
        active: Some(0),
        paused: Some(0),
    };
    u.utilization.available_minutes = Some(0);
    u.utilization.utilization_pct = Some(0.0);
    assert_eq!(
        util(&u),
        ["utilization: utilization_pct 0 with 1,000 minutes utilized but no sold daily capacity"]
    );
}

#[test]
fn available_is_sold_minus_utilized() {
    let mut u = utilization();
    u.utilization.available_minutes = Some(2500);
    assert_eq!(
        util(&u),
        ["utilization: available_minutes 2,500 ≠ sold 3,000 − utilized 1,000 = 2,000"]
    );
    // Over-used capacity: 0 available is the clamped answer and fine.
    let mut over = utilization();
    over.minutes_run_today = 4000;
    over.utilization.utilized_minutes = Some(4000);
    over.utilization.available_minutes = Some(0);
    over.utilization.utilization_pct = Some(133.3);
    assert_eq!(util(&over), Vec::<String>::new());
}

#[test]
fn active_plus_paused_is_sold() {
    let mut u = utilization();
    u.daily_capacity_minutes.paused = Some(900);
    assert_eq!(
        util(&u),
        ["daily_capacity_minutes: active 2,000 + paused 900 = 2,900 ≠ sold 3,000"]
    );
}

#[test]
fn negative_utilization_figures() {
    let mut u = utilization();
    u.capacity_status.provisioning_ports = Some(-1);
    u.minutes_run_today = -3;
    u.utilization.utilized_minutes = Some(-3);
    u.utilization.utilization_pct = Some(-0.1);
    u.utilization.available_minutes = Some(3003);
    let w = util(&u);
    for needle in [
        "minutes_run_today: negative (-3)",
        "utilization: utilized_minutes is negative (-3)",
        "utilization: utilization_pct is negative (-0.1)",
        "capacity_status: provisioning_ports is negative (-1)",
    ] {
        assert!(w.iter().any(|w| w == needle), "{needle}: {w:?}");
    }
}

#[test]
fn warnings_serialize_as_path_and_message() {
    let w = Warning::new("totals", "routes 4 but the report lists 3");
    assert_eq!(
        serde_json::to_string(&w).unwrap(),
        r#"{"path":"totals","message":"routes 4 but the report lists 3"}"#
    );
}
