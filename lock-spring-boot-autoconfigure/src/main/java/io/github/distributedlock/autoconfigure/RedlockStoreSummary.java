package io.github.distributedlock.autoconfigure;

import java.util.List;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.redlock.RedlockLockClient;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

/**
 * What the startup line says of the Redlock store: its nodes (host and port, never a password), the quorum, the key
 * prefix and the Redlock settings, such as {@code on Redlock over 3 independent Redis primaries (quorum 2):
 * a:6379, b:6379, c:6379 (TLS), key prefix 'lock:'}. The nodes and the quorum are the client's, as it reaches
 * them ({@link RedlockLockClient#describeNodes()}), the settings the properties; nothing connects. The nodes'
 * own checks (one server twice, replicas, persistence) are logged by the client as it starts. Says nothing of its
 * own when the application defined its own {@link LockClient}.
 */
final class RedlockStoreSummary implements LockStoreSummary {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedlockStoreSummary.class.getClassLoader());

	private final DistributedLockProperties properties;

	private final DistributedLockProperties.Redlock redlock;

	private final ObjectProvider<LockClient> client;

	RedlockStoreSummary(DistributedLockProperties properties, ObjectProvider<LockClient> client) {
		this.properties = properties;
		this.redlock = properties.getRedlock();
		this.client = client;
	}

	@Override
	public @Nullable String where() {
		RedlockLockClient client = ours();
		if (client == null) {
			return null;
		}
		List<String> nodes = client.describeNodes();
		return "on Redlock over " + nodes.size() + " independent Redis primaries (quorum " + client.getQuorum()
				+ "): " + String.join(", ", nodes) + ", key prefix '" + this.properties.getKeyPrefix() + "'";
	}

	@Override
	public String settings() {
		if (ours() == null) {
			return "";
		}
		String settings = ", node timeout " + DistributedLockStartupLogger.format(this.redlock.getNodeTimeout())
				+ ", retry delay " + DistributedLockStartupLogger.format(this.redlock.getRetryDelay())
				+ ", drift factor " + this.redlock.getDriftFactor() + ", min validity "
				+ DistributedLockStartupLogger.format(this.redlock.getMinValidity());
		String bundle = this.redlock.getSslBundle();
		return (bundle != null && !bundle.isBlank()) ? settings + ", SSL bundle '" + bundle + "'" : settings;
	}

	// the client bean is this store's (not one the application defined); RedlockLockClient needs Lettuce to load
	private @Nullable RedlockLockClient ours() {
		return (LETTUCE_PRESENT && this.client.getIfUnique() instanceof RedlockLockClient redlock) ? redlock : null;
	}

}
