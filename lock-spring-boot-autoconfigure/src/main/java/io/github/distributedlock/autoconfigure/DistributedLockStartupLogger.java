package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.local.LocalLockClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Logs how the locks are set up, once the context is refreshed (so after the {@link LockAnnotationValidator}
 * ran): one INFO line with where the locks are and their key prefix (what the store's {@link LockStoreSummary}
 * says: Redis and its address; or this JVM with the local store), the default lease and acquire timeout, the
 * store's settings (replica sync), the client id, the store's notes (no reactive locks with Jedis), and how many
 * {@code @DistributedLock} methods were checked. Then it runs the store's check (on Redis, the WARN about the
 * command timeout). Uses no class of Spring Data Redis, so that the local store's configuration, which works
 * without it, registers one too.
 */
final class DistributedLockStartupLogger
		implements ApplicationListener<ContextRefreshedEvent>, ApplicationContextAware {

	private static final Log logger = LogFactory.getLog(DistributedLockStartupLogger.class);

	private final DistributedLockTemplate template;

	private final ObjectProvider<LockAnnotationValidator> validator;

	private final LockStoreSummary store;

	private @Nullable ApplicationContext applicationContext;

	DistributedLockStartupLogger(DistributedLockTemplate template, ObjectProvider<LockAnnotationValidator> validator,
			LockStoreSummary store) {
		this.template = template;
		this.validator = validator;
		this.store = store;
	}

	@Override
	public void setApplicationContext(ApplicationContext applicationContext) {
		this.applicationContext = applicationContext;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		// a child context's refresh reaches this listener too; only our own context's start counts
		if (event.getApplicationContext() != this.applicationContext) {
			return;
		}
		LockAnnotationValidator checked = this.validator.getIfAvailable();
		if (logger.isInfoEnabled()) {
			logger.info(describe(checked));
		}
		Duration shortestLease = this.template.getDefaultLease();
		Duration annotated = (checked != null) ? checked.getShortestRenewedLease() : null;
		if (annotated != null && annotated.compareTo(shortestLease) < 0) {
			shortestLease = annotated;
		}
		this.store.check(shortestLease);
	}

	private String describe(@Nullable LockAnnotationValidator checked) {
		StringBuilder line = new StringBuilder("Distributed locks ").append(where());
		line.append(", default lease ").append(format(this.template.getDefaultLease()));
		line.append(", acquire timeout ").append(format(this.template.getDefaultAcquireTimeout()));
		line.append(this.store.settings());
		line.append(", client id ").append(this.template.getClient().getClientId());
		line.append(this.store.notes());
		if (checked != null) {
			line.append("; @DistributedLock methods checked: ").append(checked.getValidatedMethodCount());
		}
		return line.toString();
	}

	/** Where the locks are: what the store says, or else what the client bean is. */
	private String where() {
		String onStore = this.store.where();
		if (onStore != null) {
			return onStore;
		}
		// the template's client may be decorated (metrics, observations): the client is the bean
		LockClient client = (this.applicationContext != null)
				? this.applicationContext.getBeanProvider(LockClient.class).getIfUnique() : null;
		if (client == null) {
			client = this.template.getClient();
		}
		if (client instanceof LocalLockClient local) {
			return "in this JVM only (distributed-lock.store=local: not shared with other instances), key prefix '"
					+ local.storeKey("") + "'";
		}
		return "on " + client.getClass().getSimpleName();
	}

	/**
	 * Formats a duration as the properties are written: whole seconds as {@code 30s}, else {@code 250ms}.
	 * @param duration the duration
	 * @return its text
	 */
	static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
