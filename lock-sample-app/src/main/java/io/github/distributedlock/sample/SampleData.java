package io.github.distributedlock.sample;

import java.time.Duration;

/**
 * How long what the sample writes stays in Redis: it runs against whatever Redis answers, possibly the
 * user's own, so none of its keys lives for ever. The demo also deletes its keys when it ends.
 */
final class SampleData {

	/** The TTL of every key the sample writes: a day, so today's lottery draw is kept for the day. */
	static final Duration TTL = Duration.ofDays(1);

	private SampleData() {
	}

}
