//! The bounded queue between the relay's poll loop and one receiver's task: many senders, one
//! taker. Pushing never waits, so a receiver that is down or slow never holds the polls up;
//! when the queue is full the oldest item is dropped to make room, and the pusher is told
//! whether this is the first drop since the taker last caught up (one log line an episode,
//! not one a drop).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// What [`DropOldest::push`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// The item is queued.
    Queued,
    /// The item is queued and the oldest was dropped; `first`: the first drop since the queue
    /// was last empty.
    DroppedOldest {
        /// Whether to say so (once an episode).
        first: bool,
    },
}

#[derive(Debug)]
struct State<T> {
    items: VecDeque<T>,
    dropped: u64,
    overflowing: bool,
    closed: bool,
}

#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
    ready: Notify,
    capacity: usize,
}

/// A bounded queue that drops its oldest item when full (see the module doc).
#[derive(Debug)]
pub struct DropOldest<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Clone for DropOldest<T> {
    fn clone(&self) -> Self {
        DropOldest {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> DropOldest<T> {
    /// An empty queue of at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> DropOldest<T> {
        DropOldest {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    items: VecDeque::new(),
                    dropped: 0,
                    overflowing: false,
                    closed: false,
                }),
                ready: Notify::new(),
                capacity: capacity.max(1),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `item` at once, dropping the oldest when full.
    pub fn push(&self, item: T) -> Pushed {
        let pushed = {
            let mut state = self.state();
            let pushed = if state.items.len() >= self.shared.capacity {
                state.items.pop_front();
                state.dropped += 1;
                let first = !state.overflowing;
                state.overflowing = true;
                Pushed::DroppedOldest { first }
            } else {
                Pushed::Queued
            };
            state.items.push_back(item);
            pushed
        };
        self.shared.ready.notify_one();
        pushed
    }

    /// Everything queued now, oldest first (nothing when empty).
    pub fn drain(&self) -> Vec<T> {
        let mut state = self.state();
        state.overflowing = false;
        state.items.drain(..).collect()
    }

    /// The oldest item, waiting for one; `None` once closed and empty.
    pub async fn pop(&self) -> Option<T> {
        loop {
            {
                let mut state = self.state();
                if let Some(item) = state.items.pop_front() {
                    if state.items.is_empty() {
                        state.overflowing = false;
                    }
                    return Some(item);
                }
                if state.closed {
                    return None;
                }
            }
            self.shared.ready.notified().await;
        }
    }

    /// Waits until something is queued or the queue is closed; `false` once closed and empty.
    pub async fn wait(&self) -> bool {
        loop {
            {
                let state = self.state();
                if !state.items.is_empty() {
                    return true;
                }
                if state.closed {
                    return false;
                }
            }
            self.shared.ready.notified().await;
        }
    }

    /// No more items will come: the taker finishes what is queued and stops.
    pub fn close(&self) {
        self.state().closed = true;
        self.shared.ready.notify_one();
    }

    /// How many items are queued.
    pub fn len(&self) -> usize {
        self.state().items.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many items were dropped so far.
    pub fn dropped(&self) -> u64 {
        self.state().dropped
    }

    /// The most items it holds.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_drops_its_oldest_and_says_so_once_an_episode() {
        let queue = DropOldest::new(3);
        let pushed: Vec<Pushed> = (0..6).map(|i| queue.push(i)).collect();
        assert_eq!(
            pushed,
            [
                Pushed::Queued,
                Pushed::Queued,
                Pushed::Queued,
                Pushed::DroppedOldest { first: true },
                Pushed::DroppedOldest { first: false },
                Pushed::DroppedOldest { first: false },
            ]
        );
        assert_eq!((queue.len(), queue.dropped()), (3, 3));
        assert_eq!(queue.drain(), [3, 4, 5], "the newest kept, in order");
        for i in 0..4 {
            queue.push(i);
        }
        assert_eq!(queue.dropped(), 4);
        assert_eq!(queue.push(9), Pushed::DroppedOldest { first: false });
        assert_eq!(queue.pop().await, Some(2));
        queue.close();
        assert_eq!(queue.pop().await, Some(3));
        assert_eq!(queue.pop().await, Some(9));
        assert_eq!(queue.pop().await, None);
        assert!(!queue.wait().await);
    }
}
