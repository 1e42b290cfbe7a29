//! The team's alerts as a dashboard behind a captop relay keeps them: the relay's firing alerts,
//! taken after each poll, each one that fires or resolves logged once in the event log.
//!
//! The relay's strings came over the network: they are sanitized and cut short here, once,
//! as the service's are when a report arrives.

use chrono::{DateTime, Utc};

use super::{LogKind, Store};
use crate::api::team_alerts::TeamAlert;

/// Most alerts logged by one update; the rest are counted in one line.
const MAX_LOGGED: usize = 8;

/// `alert` with its strings made safe to show.
fn sanitized(mut alert: TeamAlert) -> TeamAlert {
    for text in [
        &mut alert.id,
        &mut alert.event,
        &mut alert.alertname,
        &mut alert.severity,
        &mut alert.route,
        &mut alert.name,
        &mut alert.dial_code,
    ] {
        *text = crate::text::fit(text, 200);
    }
    alert.summary = crate::text::fit(&alert.summary, 300);
    alert
}

impl Store {
    /// Takes the relay's firing alerts as of `now`: logs those new since the last update
    /// (all of them the first time) and those gone, as resolved.
    pub fn set_relay_alerts(&mut self, alerts: Vec<TeamAlert>, now: DateTime<Utc>) {
        let alerts: Vec<TeamAlert> = alerts.into_iter().map(sanitized).collect();
        let old = std::mem::take(&mut self.relay_alerts);
        let mut lines: Vec<(LogKind, String)> = Vec::new();
        for alert in alerts.iter().filter(|a| !old.iter().any(|o| o.id == a.id)) {
            let kind = if alert.severity == "critical" {
                LogKind::Error
            } else {
                LogKind::Warn
            };
            lines.push((kind, format!("team alert: {}", alert.summary)));
        }
        for gone in old.iter().filter(|o| !alerts.iter().any(|a| a.id == o.id)) {
            lines.push((
                LogKind::Recovery,
                format!("team alert resolved: {}", gone.summary),
            ));
        }
        let more = lines.len().saturating_sub(MAX_LOGGED);
        for (kind, text) in lines.into_iter().take(MAX_LOGGED) {
            self.log_line(now, kind, text);
        }
        if more > 0 {
            self.log_line(
                now,
                LogKind::Warn,
                format!("and {more} more team alerts fired or resolved"),
            );
        }
        self.relay_alerts = alerts;
    }

    /// The relay's alerts firing as of the last update (none without a relay).
    pub fn relay_alerts(&self) -> &[TeamAlert] {
        &self.relay_alerts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::team_alert;

    fn logged(store: &Store) -> Vec<(LogKind, String)> {
        store
            .log()
            .iter()
            .map(|e| (e.kind, e.text.clone()))
            .collect()
    }

    #[test]
    fn alerts_are_logged_when_they_fire_and_resolve_and_their_text_is_made_safe() {
        let mut store = Store::default();
        let now = DateTime::UNIX_EPOCH;
        store.set_relay_alerts(
            vec![team_alert("a", "critical", "A: 96 % filled\u{1b}[2J")],
            now,
        );
        store.set_relay_alerts(
            vec![
                team_alert("a", "critical", "A: 97 % filled"),
                team_alert("b", "warning", "B: 81 % filled"),
            ],
            now,
        );
        store.set_relay_alerts(vec![team_alert("b", "warning", "B: 82 % filled")], now);
        assert_eq!(
            logged(&store),
            [
                (
                    LogKind::Error,
                    "team alert: A: 96 % filled\u{FFFD}".to_owned()
                ),
                (LogKind::Warn, "team alert: B: 81 % filled".to_owned()),
                (
                    LogKind::Recovery,
                    "team alert resolved: A: 97 % filled".to_owned()
                ),
            ]
        );
        assert_eq!(store.relay_alerts().len(), 1);
    }
}
