package io.github.distributedlock.sample;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's partner API: {@value Demo#INSTANCES} instances x {@value Demo#THREADS} threads call one partner
 * {@value #CALLS_PER_THREAD} times each, through {@link PartnerGateway#quote} (a semaphore of
 * {@value PartnerGateway#MAX_CALLS_AT_ONCE} permits) and then without a limit. The simulated partner counts the
 * callers inside at once: at most 3 with the semaphore, up to 12 without.
 */
final class PartnerApiDemo {

	static final int CALLS_PER_THREAD = 5;

	static final long CALL_MILLIS = 20;

	/**
	 * What the two runs showed.
	 * @param mostInsideLimited the most calls in flight at once through the semaphore
	 * @param mostInsideUnlimited the most calls in flight at once without it
	 */
	record Result(int mostInsideLimited, int mostInsideUnlimited) {
	}

	private PartnerApiDemo() {
	}

	static Result run(DemoInstances instances, List<Demo.Row> rows) throws Exception {
		int[] most = new int[2];
		for (boolean limited : new boolean[] { true, false }) {
			SimulatedPartner partner = new SimulatedPartner("partner-" + UUID.randomUUID());
			AtomicInteger answered = new AtomicInteger();
			long millis = Demo.timed(() -> instances.onEveryThread((instance) -> {
				PartnerGateway gateway = instance.getBean(PartnerGateway.class);
				for (int i = 0; i < CALLS_PER_THREAD; i++) {
					String product = "product-" + i;
					if (limited) {
						gateway.quote(partner, product);
					}
					else {
						gateway.quoteWithoutLimit(partner, product);
					}
					answered.incrementAndGet();
				}
			}, Demo.THREADS));
			most[limited ? 0 : 1] = partner.mostInside();
			int calls = instances.size() * Demo.THREADS * CALLS_PER_THREAD;
			rows.add(new Demo.Row("Partner API" + (limited ? ", @DistributedLock permits = 3" : ", no limit"),
					instances.size() + " x " + Demo.THREADS + " callers, " + calls + " calls of " + CALL_MILLIS + " ms",
					answered.get() + " answered, at most " + partner.mostInside() + " at once", millis));
		}
		return new Result(most[0], most[1]);
	}

	/**
	 * The partner, as one service that every instance calls (here one object in the JVM that runs the demo's
	 * instances): a call takes {@value #CALL_MILLIS} ms, and the partner counts the calls in flight at once.
	 */
	static final class SimulatedPartner implements Partner {

		private final String name;

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger mostInside = new AtomicInteger();

		SimulatedPartner(String name) {
			this.name = name;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public String quote(String product) {
			this.mostInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			try {
				TimeUnit.MILLISECONDS.sleep(CALL_MILLIS); // the partner's answer on its way
				return product + ": 42.00";
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + this.name, ex);
			}
			finally {
				this.inside.decrementAndGet();
			}
		}

		int mostInside() {
			return this.mostInside.get();
		}

	}

}
