package io.github.distributedlock.actuate;

import java.util.List;
import java.util.Objects;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockInspector;
import io.github.distributedlock.core.LockState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code distributedlocks} Actuator endpoint:
 * <ul>
 * <li>{@code GET /actuator/distributedlocks}: the locks this instance holds now;</li>
 * <li>{@code GET /actuator/distributedlocks/{key}}: one lock as the store holds it, whoever holds it (on Redis,
 * a {@code RedisLockState}; on Redlock, a {@code RedlockLockState} with each node's view);</li>
 * <li>{@code DELETE /actuator/distributedlocks/{key}}: force-releases it, only when
 * {@code distributed-lock.endpoint.force-release-enabled=true} (otherwise 403, the lock untouched; 409, also
 * untouched, for a key of another Redis type, which is no lock of this library). Its holder then loses it: its
 * release throws {@code LockLostException}.</li>
 * </ul>
 * Keys are given without the key prefix and may contain {@code /}. Thread-safe.
 */
@Endpoint(id = "distributedlocks")
public class DistributedLocksEndpoint {

	private static final Log logger = LogFactory.getLog(DistributedLocksEndpoint.class);

	private static final int STATUS_FORBIDDEN = 403;

	private static final int STATUS_CONFLICT = 409;

	private final LockClient client;

	private final LockInspector inspector;

	private final boolean forceReleaseEnabled;

	/**
	 * Creates the endpoint.
	 * @param client the client whose held locks to list
	 * @param inspector reads and force-releases locks in the store
	 * @param forceReleaseEnabled whether DELETE may force-release a lock
	 */
	public DistributedLocksEndpoint(LockClient client, LockInspector inspector, boolean forceReleaseEnabled) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.inspector = Objects.requireNonNull(inspector, "inspector must not be null");
		this.forceReleaseEnabled = forceReleaseEnabled;
	}

	/**
	 * Lists the locks that the owners of this instance hold now, as this instance knows them (no round trip).
	 * @return the client id and its held locks
	 */
	@ReadOperation
	public HeldLocksDescriptor locks() {
		List<HeldLockDescriptor> locks = this.client.heldLocks().stream().map(HeldLockDescriptor::of).toList();
		return new HeldLocksDescriptor(this.client.getClientId(), locks);
	}

	/**
	 * Reads one lock in the store, whoever holds it.
	 * @param key the lock key without the key prefix, its {@code /}-separated path segments
	 * @return the lock's state in the store
	 * @throws DistributedLockException if the store could not be reached
	 */
	@ReadOperation
	public LockState lock(@Selector(match = Match.ALL_REMAINING) String[] key) {
		return this.inspector.inspect(String.join("/", key));
	}

	/**
	 * Force-releases one lock, whoever holds it, if enabled.
	 * @param key the lock key without the key prefix, its {@code /}-separated path segments
	 * @return 200 with whether a lock was released; 403 when force release is not enabled; 409 when the key is
	 * not a lock of this library
	 * @throws DistributedLockException if the store could not be reached
	 */
	@DeleteOperation
	public WebEndpointResponse<ForceReleaseDescriptor> forceRelease(@Selector(match = Match.ALL_REMAINING) String[] key) {
		String lockKey = String.join("/", key);
		if (!this.forceReleaseEnabled) {
			return new WebEndpointResponse<>(new ForceReleaseDescriptor(lockKey, false,
					"force release is disabled; set distributed-lock.endpoint.force-release-enabled=true to allow it"),
					STATUS_FORBIDDEN);
		}
		LockState before = this.inspector.inspect(lockKey);
		try {
			boolean released = this.inspector.forceRelease(lockKey);
			logger.warn("Lock '" + lockKey + "' was force-released through the distributedlocks endpoint"
					+ (released ? "; its owners " + before.owners() + " lose it" : ", but there was none"));
			return new WebEndpointResponse<>(new ForceReleaseDescriptor(lockKey, released,
					released ? "released; its holder's release will throw LockLostException" : "no such lock"));
		}
		catch (DistributedLockException ex) {
			if (!"foreign".equals(before.type())) {
				throw ex;
			}
			return new WebEndpointResponse<>(new ForceReleaseDescriptor(lockKey, false, ex.getMessage()),
					STATUS_CONFLICT);
		}
	}

	/**
	 * The locks of this instance.
	 * @param clientId this instance's lock client id
	 * @param locks its held locks
	 */
	public record HeldLocksDescriptor(String clientId, List<HeldLockDescriptor> locks) {
	}

	/**
	 * One held lock.
	 * @param key the lock key
	 * @param type the lock type: {@code reentrant}, {@code read}, {@code write} or {@code semaphore}, as the meters
	 * name it
	 * @param owner the owner id: on Redis its acquisition attempt's, {@code <client id>:<thread id>/<attempt>} (or
	 * {@code <client id>:async-<n>/<attempt>}); see {@link HeldLock#owner()}
	 * @param holdCount the owner's holds, re-entries included
	 * @param fencingToken the fencing token of the acquisition
	 * @param heldSince when it was acquired, ISO-8601
	 * @param leaseMillis its lease in milliseconds
	 * @param autoRenew whether the watchdog renews it
	 * @param lost whether it is known to be lost
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore
	 */
	public record HeldLockDescriptor(String key, String type, String owner, int holdCount, long fencingToken,
			String heldSince, long leaseMillis, boolean autoRenew, boolean lost, int permits) {

		static HeldLockDescriptor of(HeldLock lock) {
			return new HeldLockDescriptor(lock.key(), lock.type().nameWith(lock.permits()), lock.owner(), lock.holdCount(),
					lock.fencingToken(), lock.heldSince().toString(), lock.lease().toMillis(), lock.autoRenew(),
					lock.lost(), lock.permits());
		}

	}

	/**
	 * The outcome of a force release.
	 * @param key the lock key
	 * @param released whether a lock was released
	 * @param message what happened, in words
	 */
	public record ForceReleaseDescriptor(String key, boolean released, String message) {
	}

}
