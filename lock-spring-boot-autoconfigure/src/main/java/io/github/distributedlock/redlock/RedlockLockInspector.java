package io.github.distributedlock.redlock;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockInspector;
import io.github.distributedlock.redis.RedisLockState;
import org.jspecify.annotations.Nullable;

/**
 * Reads any Redlock lock on every node, whoever holds it, and force-releases it: diagnostics for operators (the
 * {@code distributedlocks} Actuator endpoint), not for application code. Each command goes to every node at once
 * ({@code inspect.lua}, {@code force_release.lua}), bounded by the per-node timeout. Thread-safe.
 */
public final class RedlockLockInspector implements LockInspector {

	private final List<RedlockNode> nodes;

	private final RedlockSettings settings;

	/**
	 * Creates the inspector of a client's nodes.
	 * @param client the Redlock client whose nodes and key prefix to use
	 */
	public RedlockLockInspector(RedlockLockClient client) {
		Objects.requireNonNull(client, "client must not be null");
		this.nodes = client.nodes();
		this.settings = client.settings();
	}

	/**
	 * {@inheritDoc} Asks every node; the lock is held by the owner that holds the key on a quorum of them.
	 * @throws DistributedLockException if fewer than a quorum of nodes answered (the state is not known)
	 */
	@Override
	public RedlockLockState inspect(String key) {
		RedlockKeys keys = RedlockKeys.of(this.settings.keyPrefix(), key);
		NodeReplies replies = NodeReplies.sendToAll(this.nodes,
				(node, i) -> node.eval(RedlockScript.INSPECT, new String[] { keys.lock() }))
			.join();
		int quorum = this.settings.quorum();
		checkAnswered(key, replies, "its state is not known");
		List<RedlockLockState.NodeLock> views = new ArrayList<>();
		Map<String, List<Long>> ttlsByOwner = new HashMap<>();
		boolean foreign = false;
		boolean locked = false;
		for (int i = 0; i < this.nodes.size(); i++) {
			RedlockLockState.NodeLock view = view(this.nodes.get(i).name(), replies.replies().get(i));
			views.add(view);
			foreign |= "foreign".equals(view.state());
			if ("held".equals(view.state())) {
				locked = true;
				ttlsByOwner.computeIfAbsent(view.owner(), (owner) -> new ArrayList<>()).add(view.ttlMillis());
			}
		}
		String holder = null;
		long ttl = 0;
		for (Map.Entry<String, List<Long>> owner : ttlsByOwner.entrySet()) {
			if (owner.getValue().size() >= quorum) {
				holder = owner.getKey();
				List<Long> ttls = new ArrayList<>(owner.getValue());
				ttls.sort(Comparator.reverseOrder());
				ttl = ttls.get(quorum - 1);
			}
		}
		String type = foreign ? "foreign" : (locked ? "reentrant" : "none");
		List<String> owners = (holder != null) ? List.of(holder) : List.of();
		List<RedisLockState.Holder> holders = (holder != null) ? List.of(new RedisLockState.Holder(holder, ttl))
				: List.of();
		return new RedlockLockState(key, keys.lock(), type, holder != null, ttl, owners, 0, holders,
				"none".equals(type) ? 0 : 1, quorum, views);
	}

	/**
	 * {@inheritDoc} Deletes the key on every node that answers and publishes it on the release channel there, so
	 * that waiters vote again at once; its holder is told lost at its next renewal.
	 * @throws DistributedLockException if fewer than a quorum of nodes answered (the lock may still be held on the
	 * others), or a node has a key of another Redis type there (then no node is touched)
	 */
	@Override
	public boolean forceRelease(String key) {
		RedlockLockState before = inspect(key);
		if ("foreign".equals(before.type())) {
			throw new DistributedLockException("Lock '" + key + "': a Redlock node has a key '" + before.redisKey()
					+ "' of another Redis type, which is no lock of this library; nothing was deleted");
		}
		RedlockKeys keys = RedlockKeys.of(this.settings.keyPrefix(), key);
		String channel = RedlockKeys.channel(this.settings.keyPrefix());
		NodeReplies replies = NodeReplies.sendToAll(this.nodes,
				(node, i) -> node.eval(RedlockScript.FORCE_RELEASE, new String[] { keys.lock() }, channel))
			.join();
		checkAnswered(key, replies, "the lock may still be held on the others until its lease ends");
		return replies.ones() > 0;
	}

	private void checkAnswered(String key, NodeReplies replies, String consequence) {
		int quorum = this.settings.quorum();
		if (replies.answered() < quorum) {
			throw new DistributedLockException("Lock '" + key + "': only " + replies.answered() + " of "
					+ this.nodes.size() + " Redlock nodes answered, fewer than the quorum of " + quorum + "; "
					+ consequence);
		}
	}

	private static RedlockLockState.NodeLock view(String node, @Nullable Object reply) {
		if (!(reply instanceof List<?> fields) || fields.size() < 5) {
			return new RedlockLockState.NodeLock(node, "not answering", "", 0, 0, false);
		}
		long kind = number(fields.get(0));
		long pttl = number(fields.get(1));
		String owner = String.valueOf(fields.get(2));
		long token = number(fields.get(3));
		boolean waited = number(fields.get(4)) == 1;
		String state = (kind == 0) ? "free" : (kind == 2) ? "foreign" : owner.isEmpty() ? "foreign" : "held";
		return new RedlockLockState.NodeLock(node, state, owner, pttl, token, waited);
	}

	private static long number(@Nullable Object value) {
		if (value instanceof Long number) {
			return number;
		}
		try {
			return (value == null) ? 0 : Long.parseLong(value.toString());
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

}
