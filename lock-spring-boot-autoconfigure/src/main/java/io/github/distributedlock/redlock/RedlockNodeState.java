package io.github.distributedlock.redlock;

import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Whether one Redlock node answers, as this client's commands to it found (every command goes through its
 * {@link RedlockNode}), and the one log line per change, naming the node: a WARN when it stops answering (its
 * connection was lost or refused, or a command went unanswered within the per-node timeout and so did one sent
 * after that: one slow answer on a loaded machine, or the commands in flight with it, are no outage), an ERROR when it refuses this client's credentials or
 * permissions ({@code WRONGPASS}, {@code NOAUTH}, {@code NOPERM}: a configuration error that no retry fixes), and
 * an INFO when it answers again. A node that was not answering from the start is told by the startup check, not
 * here (its return is told here), unless it refuses the credentials. Any reply counts as an answer, an error reply too (a script error, a
 * {@code WRONGTYPE}): the node is up. Thread-safe: the state is guarded by this object's monitor.
 */
final class RedlockNodeState {

	private static final Log logger = LogFactory.getLog(RedlockNodeState.class);

	/** How a node stands, as the last commands found. */
	enum Standing {

		/** No command has come back yet. */
		NEW,

		/** The last command was answered. */
		ANSWERING,

		/** One command went unanswered in time after answers; not told yet. */
		SLOW,

		/** Not answering: its connection is down, or commands go unanswered. */
		SILENT,

		/** It refuses this client's credentials or permissions. */
		REFUSING

	}

	private final String node;

	private Standing standing = Standing.NEW;

	/** Why the node does not answer, in the failure's own words; {@code null} while it answers. */
	private @Nullable String reason;

	/** When it stopped answering, as a {@link System#nanoTime()} value. */
	private long since;

	/** Whether it was told as not answering (a WARN or an ERROR), so that its return is told. */
	private boolean told;

	/** Set once the node closes: its connections then close by intent, which is no outage. */
	private boolean closed;

	RedlockNodeState(String node) {
		this.node = node;
	}

	/** A command to the node came back with a reply (an error reply too). */
	void answered() {
		String back;
		synchronized (this) {
			Standing before = this.standing;
			this.standing = Standing.ANSWERING;
			this.reason = null;
			if (!this.told || this.closed) {
				return;
			}
			this.told = false;
			back = "Redlock node " + this.node + " answers again"
					+ ((before == Standing.REFUSING) ? " and accepts this client's credentials" : "") + ", "
					+ String.format(Locale.ROOT, "%.1f", (System.nanoTime() - this.since) / 1e9)
					+ " s after it stopped";
		}
		logger.info(back);
	}

	/**
	 * A command to the node failed.
	 * @param failure how it failed
	 * @param sentAt when the command was sent, a {@link System#nanoTime()} value: commands in flight together
	 * that time out together are one late answer, not two
	 */
	void failed(Throwable failure, long sentAt) {
		if (isCredentialRefusal(failure) || isPermissionRefusal(failure)) {
			refusing(words(failure));
		}
		else if (isNoConnection(failure)) {
			silent(words(failure), true, sentAt);
		}
		else if (isUnanswered(failure)) {
			silent("no answer within the node timeout", false, sentAt);
		}
		else if (failure instanceof RedisCommandExecutionException || hasCause(failure, RedisCommandExecutionException.class)) {
			answered();
		}
	}

	/** A connection to the node closed: Lettuce reconnects it, and commands are refused until then. */
	void disconnected() {
		silent("its connection was lost", true, System.nanoTime());
	}

	/** The node closes with the client: nothing it does from now on is told. */
	synchronized void close() {
		this.closed = true;
	}

	/**
	 * Tells whether the last command came back with a reply, or none came back yet.
	 * @return {@code true} while new or answering
	 */
	synchronized boolean lastAnswered() {
		return this.standing == Standing.NEW || this.standing == Standing.ANSWERING;
	}

	/**
	 * Describes how the node stands, for the health contributor.
	 * @return its standing and, when not answering, why
	 */
	synchronized RedlockNodeStatus status() {
		boolean answering = this.standing == Standing.ANSWERING || this.standing == Standing.SLOW;
		String words = switch (this.standing) {
			case NEW -> "not asked yet";
			case ANSWERING -> "up";
			case SLOW -> "up, but its last command went unanswered within the node timeout";
			case SILENT -> "not answering: " + this.reason;
			case REFUSING -> "refuses this client's credentials or permissions (a configuration error, fix its URL "
					+ "or its ACL user): " + this.reason;
		};
		return new RedlockNodeStatus(this.node, answering, words);
	}

	private void refusing(String words) {
		synchronized (this) {
			if (this.closed || (this.standing == Standing.REFUSING && words.equals(this.reason))) {
				return;
			}
			if (this.standing != Standing.SILENT && this.standing != Standing.REFUSING) {
				this.since = System.nanoTime();
			}
			this.standing = Standing.REFUSING;
			this.reason = words;
			this.told = true;
		}
		logger.error("Redlock node " + this.node + " refuses this client's credentials or permissions (" + words
				+ "): a configuration error that will not fix itself. The node does not vote until the user and "
				+ "password in its URL (distributed-lock.redlock.nodes) or its ACL user are corrected (see "
				+ "docs/redlock.md#acl-users)");
	}

	private void silent(String words, boolean certain, long sentAt) {
		synchronized (this) {
			if (this.closed || this.standing == Standing.SILENT || this.standing == Standing.REFUSING
					|| (this.standing == Standing.SLOW && !certain && sentAt - this.since < 0)) {
				return;
			}
			if (this.standing == Standing.NEW && certain) {
				// the startup check tells a node that is down from the start; its return is told here
				this.standing = Standing.SILENT;
				this.reason = words;
				this.since = System.nanoTime();
				this.told = true;
				return;
			}
			if ((this.standing == Standing.ANSWERING || this.standing == Standing.NEW) && !certain) {
				// one late answer (a cold start, a loaded machine) is no outage yet: a command sent after it
				// that goes unanswered too is
				this.standing = Standing.SLOW;
				this.since = System.nanoTime();
				return;
			}
			if (this.standing == Standing.ANSWERING) {
				this.since = System.nanoTime();
			}
			this.standing = Standing.SILENT;
			this.reason = words;
			this.told = true;
		}
		logger.warn("Redlock node " + this.node + " stopped answering (" + words + "): locks are held and "
				+ "granted on the other nodes while a quorum of them answers; it votes again once it answers");
	}

	/**
	 * Tells whether the node refused this client's user or password ({@code WRONGPASS}, {@code NOAUTH}): its
	 * connection cannot be made.
	 * @param failure a failure of a command or of the connection
	 * @return {@code true} for a refused user or password
	 */
	static boolean isCredentialRefusal(Throwable failure) {
		return hasMessage(failure, "WRONGPASS", "NOAUTH");
	}

	/**
	 * Tells whether the node refused a command, key or channel to this client's ACL user ({@code NOPERM}, or a
	 * command a script called: {@code ... The user executing the script can't ...}).
	 * @param failure a failure of a command
	 * @return {@code true} for an ACL refusal
	 */
	static boolean isPermissionRefusal(Throwable failure) {
		return hasMessage(failure, "NOPERM", "The user executing the script");
	}

	private static boolean hasMessage(Throwable failure, String... words) {
		for (Throwable cause = failure; cause != null; cause = next(cause)) {
			String message = cause.getMessage();
			for (String word : words) {
				if (message != null && (message.startsWith(word) || message.contains(" " + word))) {
					return true;
				}
			}
		}
		return false;
	}

	/** The connection is not there: refused, closed, or not made again yet (commands are refused meanwhile). */
	private static boolean isNoConnection(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = next(cause)) {
			String message = String.valueOf(cause.getMessage());
			if (cause instanceof RedisConnectionException || cause instanceof ConnectException
					|| cause instanceof ClosedChannelException || message.contains("not connected")
					|| message.contains("Connection closed") || message.contains("Connection reset")) {
				return true;
			}
		}
		return false;
	}

	private static boolean isUnanswered(Throwable failure) {
		return hasCause(failure, TimeoutException.class) || hasCause(failure, RedisCommandTimeoutException.class);
	}

	private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
		for (Throwable cause = failure; cause != null; cause = next(cause)) {
			if (type.isInstance(cause)) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable Throwable next(Throwable cause) {
		return (cause.getCause() != cause) ? cause.getCause() : null;
	}

	/** The failure's own words: the innermost message, which names the cause. */
	private static String words(Throwable failure) {
		Throwable root = failure;
		for (Throwable cause = failure; cause != null; cause = next(cause)) {
			if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
				root = cause;
			}
		}
		return (root.getMessage() != null) ? root.getMessage() : root.getClass().getName();
	}

}
