package io.github.distributedlock.autoconfigure;

import java.util.Map;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.metrics.LockMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Once the context is refreshed (the {@code @DistributedLock} methods are checked by then), registers the
 * per-lock counters of every lock name the annotations use, at zero, so that {@code distributed.lock.lost},
 * {@code distributed.lock.renewals.failed} and {@code distributed.lock.releases.failed} have a series for alert
 * rules and dashboards before their first event.
 */
final class KnownLockMeters implements ApplicationListener<ContextRefreshedEvent> {

	private final LockMetrics metrics;

	private final ObjectProvider<LockAnnotationValidator> validator;

	private final ApplicationContext context;

	KnownLockMeters(LockMetrics metrics, ObjectProvider<LockAnnotationValidator> validator,
			ApplicationContext context) {
		this.metrics = metrics;
		this.validator = validator;
		this.context = context;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		// a child context's refresh reaches this listener too
		LockAnnotationValidator checked = this.validator.getIfAvailable();
		if (event.getApplicationContext() != this.context || checked == null) {
			return;
		}
		Map<String, Integer> semaphores = checked.getSemaphorePermits();
		checked.getLockNames()
			.forEach((name, types) -> types.forEach((type) -> this.metrics.registerKnown(name, type,
					(type == LockType.REENTRANT) ? semaphores.getOrDefault(name, 1) : 1)));
	}

}
