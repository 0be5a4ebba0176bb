package io.github.distributedlock.redis;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.distributedlock.core.LincheckScenarios;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

import static io.github.distributedlock.core.LincheckScenarios.call;

/**
 * Model checks of {@link LocalQueue}, the local FIFO queue of one client's owners of one exclusive lock, without
 * Redis: each Lincheck thread is one owner that queues, looks at its turn, withdraws, releases (handing the lock
 * over to the next waiter, or leaving when none waits) or learns its hold lost; a further operation runs what the
 * queue's timer has due (the bypass after a lost head). Every run is checked against {@link Model}, a sequential
 * description of what the queue promises:
 * <ul>
 * <li>one holder at a time (an owner that is granted while another holds is reported as "two holders");</li>
 * <li>grants in arrival order: a release gives the lock to the first waiter still waiting;</li>
 * <li>a withdrawn waiter is never granted, and a waiter whose withdrawal came too late is granted;</li>
 * <li>a lost head blocks nobody: its waiters go to Redis on their own once the timer runs, and an owner that
 * comes after the loss goes at once.</li>
 * </ul>
 * The timer is a hand-run {@link ScheduledExecutorService}, so Lincheck sees the timer's work as an operation of
 * its own, interleaved with the others.
 * <p>
 * Mutations these tests catch (each made by hand in {@link LocalQueue}, seen to fail, then reverted):
 * {@code reserveNext} polling the last waiter instead of the first (model checking, hand-written scenario: the
 * tail granted); {@code end} not checking that the waiter still waits (model checking: a reserved waiter
 * withdrawn, the lock handed to nobody); {@code headLost} doing nothing (both modes: waiters and a later owner
 * wait behind a lost head); {@code take} without the queue's monitor (both modes: two holders).
 */
@Param(name = "owner", gen = ThreadIdGen.class)
public class LocalQueueLincheckTests {

	private static final int OWNERS = 4;

	private static final int IDLE = 0;

	private static final int WAITING = 1;

	private static final int HOLDING = 2;

	private static final int RELEASING = 3;

	private static final Field WAITER_STATE = waiterState();

	private final ConcurrentLinkedQueue<TimerTask> due = new ConcurrentLinkedQueue<>();

	private final LocalQueue queue = new LocalQueue(handRunTimer(this.due));

	/** Each owner's state, written only by its own thread. */
	private final int[] states = new int[OWNERS];

	private final LocalQueue.Waiter[] waiters = new LocalQueue.Waiter[OWNERS];

	/** The waiter each releasing owner reserved and has not handed the lock to yet, or {@code null}. */
	private final AtomicReferenceArray<LocalQueue.Waiter> reserved = new AtomicReferenceArray<>(OWNERS);

	/** Owners that hold the lock now, as they see it. */
	private final AtomicInteger holders = new AtomicInteger();

	/**
	 * The owner asks for the lock: it becomes the head at once, waits behind the others, or (the head is lost)
	 * goes to Redis on its own.
	 */
	@Operation
	public String take(@Param(name = "owner") int owner) {
		if (this.states[owner] != IDLE) {
			return "busy";
		}
		LocalQueue.Waiter waiter = this.queue.take("owner-" + owner, 30_000, false, Long.MAX_VALUE);
		if (waiter == LocalQueue.Waiter.BYPASS_NOW) {
			return "bypass";
		}
		this.waiters[owner] = waiter;
		if (waiter == LocalQueue.Waiter.HEAD_NOW) {
			return enter(owner, "head");
		}
		this.states[owner] = WAITING;
		return "queued";
	}

	/** A waiting owner looks at its turn. */
	@Operation
	public String turn(@Param(name = "owner") int owner) {
		if (this.states[owner] != WAITING) {
			return (this.states[owner] == HOLDING) ? "holding" : "idle";
		}
		return stillWaits(this.waiters[owner]) ? "waiting" : givenTurn(owner);
	}

	/** A waiting owner gives up; if its turn came or is coming, it takes it. */
	@Operation
	public String withdraw(@Param(name = "owner") int owner) {
		if (this.states[owner] != WAITING) {
			return "not waiting";
		}
		if (this.queue.cancel(this.waiters[owner])) {
			this.states[owner] = IDLE;
			return "withdrawn";
		}
		return "too late: " + givenTurn(owner);
	}

	/**
	 * The turn of an owner the queue no longer has waiting: "coming" while it is reserved for a hand-over that
	 * has not started, else the turn, which the queue gave under its monitor and completes right after leaving
	 * it (the owner waits for that, as a thread that waits for its turn does).
	 */
	private String givenTurn(int owner) {
		LocalQueue.Waiter waiter = this.waiters[owner];
		while (!waiter.turn().isDone()) {
			if (isReserved(waiter)) {
				return "coming";
			}
			Thread.onSpinWait();
		}
		LocalTurn given = waiter.turn().join();
		if (given == LocalTurn.BYPASS) {
			this.states[owner] = IDLE;
			return "bypass";
		}
		if (given == LocalTurn.HEAD || given.handedOver()) {
			return enter(owner, "granted");
		}
		return "turn " + given + " without a withdrawal";
	}

	private boolean isReserved(LocalQueue.Waiter waiter) {
		for (int owner = 0; owner < OWNERS; owner++) {
			if (this.reserved.get(owner) == waiter) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The holder starts its release: it leaves its critical section and reserves the next waiter for a hand-over,
	 * which can then no longer withdraw; the hand-over goes to Redis between this and {@link #handOver}.
	 */
	@Operation
	public String reserve(@Param(name = "owner") int owner) {
		if (this.states[owner] != HOLDING) {
			return "not holding";
		}
		this.states[owner] = RELEASING;
		this.holders.decrementAndGet();
		LocalQueue.Waiter next = this.queue.reserveNext();
		this.reserved.set(owner, next);
		return (next != null) ? "reserved " + next.owner() : "none waits";
	}

	/**
	 * The releasing owner ends its release: Redis moved the lock to the reserved waiter, or (none was reserved)
	 * it leaves the queue, whose next waiter, if one came meanwhile, becomes the head.
	 */
	@Operation
	public String handOver(@Param(name = "owner") int owner) {
		if (this.states[owner] != RELEASING) {
			return "not releasing";
		}
		this.states[owner] = IDLE;
		LocalQueue.Waiter next = this.reserved.getAndSet(owner, null);
		if (next != null) {
			this.queue.handedOver(next, System.nanoTime(), 1);
			return "handed over";
		}
		this.queue.leave(null);
		return "left";
	}

	/** The releasing owner's hand-over failed in Redis: the reserved waiter becomes the head and acquires itself. */
	@Operation
	public String handOverFails(@Param(name = "owner") int owner) {
		if (this.states[owner] != RELEASING) {
			return "not releasing";
		}
		this.states[owner] = IDLE;
		this.queue.leave(this.reserved.getAndSet(owner, null));
		return "left";
	}

	/** The holder's hold is known lost (its renewal found the lock gone). */
	@Operation
	public String headLost(@Param(name = "owner") int owner) {
		if (this.states[owner] != HOLDING) {
			return "not holding";
		}
		this.queue.headLost();
		return "lost";
	}

	/** The queue's timer thread runs what it has due. */
	@Operation
	public void timer() {
		TimerTask task;
		while ((task = this.due.poll()) != null) {
			task.run();
		}
	}

	/**
	 * Whether the queue still has the waiter waiting: its state, which the queue changes under its monitor, and
	 * not its turn, which is completed after the monitor is left, so that a look at the turn is ordered with the
	 * queue's other changes as the model orders it.
	 */
	private static boolean stillWaits(LocalQueue.Waiter waiter) {
		try {
			return WAITER_STATE.getInt(waiter) == LocalQueue.Waiter.WAITING;
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private String enter(int owner, String how) {
		this.states[owner] = HOLDING;
		return (this.holders.incrementAndGet() == 1) ? how : "two holders";
	}

	@Test
	void grantsOneHolderInArrivalOrderInEveryInterleaving() {
		new ModelCheckingOptions().iterations(20)
			.invocationsPerIteration(200)
			.threads(3)
			.actorsPerThread(4)
			.actorsBefore(0)
			.actorsAfter(0)
			.sequentialSpecification(Model.class)
			.addCustomScenario(handOverRacesWithdrawals())
			.addCustomScenario(lostHeadRacesItsRelease())
			.addCustomScenario(ownersComeTogether())
			.check(getClass());
	}

	@Test
	void grantsOneHolderInArrivalOrderUnderStress() {
		new StressOptions().iterations(5)
			.invocationsPerIteration(200)
			.threads(3)
			.actorsPerThread(4)
			.actorsBefore(0)
			.actorsAfter(0)
			.minimizeFailedScenario(false)
			.sequentialSpecification(Model.class)
			.check(getClass());
	}

	/** A head and two waiters queued in order; the head releases while the waiters look at their turns or withdraw. */
	private static ExecutionScenario handOverRacesWithdrawals() {
		return LincheckScenarios.of(LocalQueueLincheckTests.class)
			.initial(call("take", 0), call("take", 1), call("take", 2))
			.thread(call("reserve", 0), call("handOver", 0))
			.thread(call("withdraw", 1), call("turn", 1))
			.thread(call("turn", 2), call("withdraw", 2), call("turn", 2))
			.post(call("turn", 1), call("turn", 2), call("reserve", 1), call("reserve", 2), call("handOver", 1),
					call("handOver", 2), call("turn", 2))
			.build();
	}

	/**
	 * A head and two waiters; the head learns its hold lost and releases while the timer runs and a waiter
	 * withdraws; a late owner comes.
	 */
	private static ExecutionScenario lostHeadRacesItsRelease() {
		return LincheckScenarios.of(LocalQueueLincheckTests.class)
			.initial(call("take", 0), call("take", 1), call("take", 2))
			.thread(call("headLost", 0), call("reserve", 0), call("handOverFails", 0))
			.thread(call("timer"), call("turn", 1), call("take", 3))
			.thread(call("withdraw", 2), call("turn", 2))
			.post(call("turn", 1), call("turn", 2), call("timer"), call("turn", 1), call("turn", 2))
			.build();
	}

	/** Three owners come to a free queue at once, and the first head leaves. */
	private static ExecutionScenario ownersComeTogether() {
		return LincheckScenarios.of(LocalQueueLincheckTests.class)
			.thread(call("take", 0), call("reserve", 0), call("handOver", 0))
			.thread(call("take", 1), call("turn", 1))
			.thread(call("take", 2), call("turn", 2))
			.post(call("turn", 1), call("turn", 2), call("reserve", 1), call("reserve", 2), call("handOver", 1),
					call("handOver", 2), call("turn", 1), call("turn", 2))
			.build();
	}

	private static Field waiterState() {
		try {
			Field state = LocalQueue.Waiter.class.getDeclaredField("state");
			state.setAccessible(true);
			return state;
		}
		catch (NoSuchFieldException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** A {@link ScheduledExecutorService} whose {@code schedule(Runnable, ...)} only queues the task in {@code due}. */
	private static ScheduledExecutorService handRunTimer(ConcurrentLinkedQueue<TimerTask> due) {
		return (ScheduledExecutorService) Proxy.newProxyInstance(LocalQueueLincheckTests.class.getClassLoader(),
				new Class<?>[] { ScheduledExecutorService.class }, (proxy, method, args) -> {
					if (method.getName().equals("schedule") && args[0] instanceof Runnable action) {
						TimerTask task = new TimerTask(action);
						due.add(task);
						return task;
					}
					switch (method.getName()) {
						case "equals":
							return proxy == args[0];
						case "hashCode":
							return System.identityHashCode(proxy);
						case "toString":
							return "hand-run timer";
						default:
							break;
					}
					throw new UnsupportedOperationException(method.getName());
				});
	}

	/** A task of the hand-run timer: runs unless cancelled. */
	private static final class TimerTask implements ScheduledFuture<Object> {

		private final Runnable action;

		private volatile boolean cancelled;

		TimerTask(Runnable action) {
			this.action = action;
		}

		void run() {
			if (!this.cancelled) {
				this.action.run();
			}
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			this.cancelled = true;
			return true;
		}

		@Override
		public boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public boolean isDone() {
			return this.cancelled;
		}

		@Override
		public Object get() {
			throw new UnsupportedOperationException();
		}

		@Override
		public Object get(long timeout, TimeUnit unit) {
			throw new UnsupportedOperationException();
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return 0;
		}

		@Override
		public int compareTo(Delayed other) {
			return 0;
		}

	}

	/**
	 * What the queue promises, one operation at a time: a FIFO of waiting owners behind one holder; a release
	 * grants the first waiter; a lost head sends its waiters to Redis when the timer runs, and later owners at once.
	 */
	public static class Model {

		private final int[] states = new int[OWNERS];

		/** Each waiting owner's turn once given ("granted", "bypass"), or {@code null} while it waits. */
		private final String[] turns = new String[OWNERS];

		private final ArrayDeque<Integer> waiting = new ArrayDeque<>();

		/** The owner each releasing owner reserved, or -1. */
		private final int[] reserved = new int[OWNERS];

		private boolean taken;

		private boolean lost;

		private boolean bypassDue;

		public String take(int owner) {
			if (this.states[owner] != IDLE) {
				return "busy";
			}
			if (!this.taken) {
				this.taken = true;
				this.states[owner] = HOLDING;
				return "head";
			}
			if (this.lost) {
				return "bypass";
			}
			this.waiting.addLast(owner);
			this.turns[owner] = null;
			this.states[owner] = WAITING;
			return "queued";
		}

		public String turn(int owner) {
			if (this.states[owner] != WAITING) {
				return (this.states[owner] == HOLDING) ? "holding" : "idle";
			}
			return this.waiting.contains(owner) ? "waiting" : givenTurn(owner);
		}

		public String withdraw(int owner) {
			if (this.states[owner] != WAITING) {
				return "not waiting";
			}
			if (this.waiting.remove(owner)) {
				this.states[owner] = IDLE;
				return "withdrawn";
			}
			return "too late: " + givenTurn(owner);
		}

		private String givenTurn(int owner) {
			for (int releasing = 0; releasing < OWNERS; releasing++) {
				if (this.states[releasing] == RELEASING && this.reserved[releasing] == owner) {
					return "coming";
				}
			}
			String turn = this.turns[owner];
			this.states[owner] = turn.equals("bypass") ? IDLE : HOLDING;
			return turn;
		}

		public String reserve(int owner) {
			if (this.states[owner] != HOLDING) {
				return "not holding";
			}
			this.states[owner] = RELEASING;
			Integer next = this.waiting.pollFirst();
			this.reserved[owner] = (next != null) ? next : -1;
			return (next != null) ? "reserved owner-" + next : "none waits";
		}

		public String handOver(int owner) {
			if (this.states[owner] != RELEASING) {
				return "not releasing";
			}
			boolean reservedOne = this.reserved[owner] != -1;
			leave(owner);
			return reservedOne ? "handed over" : "left";
		}

		public String handOverFails(int owner) {
			if (this.states[owner] != RELEASING) {
				return "not releasing";
			}
			leave(owner);
			return "left";
		}

		/** The head leaves: the reserved waiter, or else the first one waiting, is the new head. */
		private void leave(int owner) {
			this.states[owner] = IDLE;
			this.lost = false;
			this.bypassDue = false;
			int next = this.reserved[owner];
			if (next == -1 && !this.waiting.isEmpty()) {
				next = this.waiting.pollFirst();
			}
			if (next != -1) {
				this.turns[next] = "granted";
			}
			else {
				this.taken = false;
			}
		}

		public String headLost(int owner) {
			if (this.states[owner] != HOLDING) {
				return "not holding";
			}
			this.lost = true;
			this.bypassDue = !this.waiting.isEmpty();
			return "lost";
		}

		public void timer() {
			if (this.bypassDue) {
				this.bypassDue = false;
				for (Integer owner : this.waiting) {
					this.turns[owner] = "bypass";
				}
				this.waiting.clear();
			}
		}

	}

}
