package io.github.distributedlock.docs;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.AbstractLockHandle;
import io.github.distributedlock.core.ForwardingLockClient;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLossSignal;
import io.github.distributedlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.context.annotation.Bean;

/**
 * The snippets of docs/custom-store.md (writing a lock store), compiled; not run.
 */
@SuppressWarnings("unused")
class CustomStoreSnippets {

	/** A store's own record of one hold, as the snippets use it. */
	interface MyHold {

		String key();

		LockType type();

		long token();

		@Nullable String lostReason();

		long confirmedUntil();

		LockLossSignal lossSignal();

		void release();

	}

	/** What the decorator snippet records to. */
	interface AuditLog {

		void record(String key);

	}

	abstract static class MyStore implements LockClient {

		// tag::capabilities[]
		@Override
		public LockCapabilities capabilities() {
			return LockCapabilities.of("mystore", LockCapability.READ_WRITE, LockCapability.MINIMUM_HOLD);
		}
		// end::capabilities[]

	}

	// tag::handle[]
	final class MyHandle extends AbstractLockHandle {

		private final MyHold hold;                                        // the store's record of this hold

		MyHandle(MyHold hold) {
			this.hold = hold;
		}

		@Override public String key() { return this.hold.key(); }
		@Override public LockType type() { return this.hold.type(); }
		@Override public long fencingToken() { return this.hold.token(); }  // strictly increasing per key
		@Override protected @Nullable String lostReason() { return this.hold.lostReason(); }  // null while not known lost
		@Override protected long confirmedUntil(long now) { return this.hold.confirmedUntil(); }  // System.nanoTime()
		@Override protected LockLossSignal lossSignal() { return this.hold.lossSignal(); }  // one per hold
		@Override protected void release() { this.hold.release(); }        // called once
	}
	// end::handle[]

	static class Decorators {

		// tag::decorator[]
		@Bean
		LockClientDecorator auditing(AuditLog audit) {
			return (client) -> new ForwardingLockClient(client) {
				@Override
				public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
					audit.record(request.key());
					return super.acquire(request);
				}
			};
		}
		// end::decorator[]

	}

}
