package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Creates the {@link DistributedLockTemplate} bean of either store the same way: on the lock client as decorated
 * by every {@link LockClientDecorator} bean, in their order (the acquire observation is one), with the defaults
 * of the {@code distributed-lock.*} properties.
 */
final class LockTemplateFactory {

	private LockTemplateFactory() {
	}

	static DistributedLockTemplate create(LockClient client, DistributedLockProperties properties,
			ObjectProvider<LockClientDecorator> decorators) {
		LockClient decorated = client;
		for (LockClientDecorator decorator : decorators.orderedStream().toList()) {
			decorated = decorator.decorate(decorated);
		}
		return new DistributedLockTemplate(decorated, properties.getLease(), properties.getAcquireTimeout(),
				properties.getOnLost());
	}

}
