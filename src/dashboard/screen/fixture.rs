//! A screen of two services for tests and snapshots (hidden from the docs): one live, one whose
//! every poll is refused.

use crate::fixtures::{capacity, route, t, utilization};

/// Two services side by side at `t(12)`, for the screen's tests and snapshots: `prod`, polled
/// at `t(10)` (Lagos 98 % full, 63.4 % utilized), and `lab`, whose every poll is refused.
/// `base` is the monotonic instant of `t(0)`.
pub fn two_services(base: std::time::Instant) -> super::Screen {
    use crate::api::{ApiError, Endpoint};
    use crate::dashboard::app::{App, Event, UiOptions};
    use crate::poll::PollEvent;
    let service = |name: &str| super::Service {
        name: name.to_owned(),
        app: App::new(
            UiOptions {
                service_label: format!("{name} http://127.0.0.1:9/v1"),
                ..UiOptions::default()
            },
            t(0),
            base,
        ),
        down: None,
    };
    let mut screen = super::Screen::new(vec![service("prod"), service("lab")]);
    screen.set_clock(t(10), base + std::time::Duration::from_secs(10));
    let routes = vec![
        route("ng-lagos", "Lagos", "+234", 120_000, 117_600, 40, 39),
        route("gb-london", "London", "+44", 480_000, 398_400, 120, 100),
        route("de-frankfurt", "Frankfurt", "+49", 200_000, 24_000, 50, 6),
    ];
    let polled = [
        PollEvent::Capacity {
            seq: 1,
            received_at: t(10),
            result: Ok(capacity(t(10), routes)),
        },
        PollEvent::Utilization {
            seq: 1,
            received_at: t(10),
            result: Ok(utilization(t(10), 63.4, 1_020)),
        },
    ];
    for poll in polled {
        screen.update_service(0, Event::Poll(poll));
    }
    fn refused<T>(endpoint: Endpoint) -> Result<T, ApiError> {
        let reason = "connection refused".to_owned();
        Err(ApiError::Connect { endpoint, reason })
    }
    let (seq, received_at) = (1, t(10));
    let failed = [
        PollEvent::Capacity {
            seq,
            received_at,
            result: refused(Endpoint::Capacity),
        },
        PollEvent::Utilization {
            seq,
            received_at,
            result: refused(Endpoint::Utilization),
        },
    ];
    for poll in failed {
        screen.update_service(1, Event::Poll(poll));
    }
    screen.set_clock(t(12), base + std::time::Duration::from_secs(12));
    screen
}
