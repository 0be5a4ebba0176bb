package io.github.distributedlock.test;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What read/write exclusion tests check inside the lock: a writer never finds a reader or another writer
 * inside, a reader never finds a writer, and a reader never sees a write in progress or a write made while it
 * reads. The writers write a version in Redis in two steps (odd while a write is in progress). Thread-safe.
 */
public final class ReadWriteChecker {

	private final StringRedisTemplate redis;

	private final String versionKey;

	private final AtomicInteger readersInside = new AtomicInteger();

	private final AtomicInteger writersInside = new AtomicInteger();

	private final AtomicInteger violations = new AtomicInteger();

	private final AtomicInteger tornReads = new AtomicInteger();

	/**
	 * Sets the version at {@code versionKey} to 0.
	 * @param redis a template on the server
	 * @param versionKey the key of the version the writers write
	 */
	public ReadWriteChecker(StringRedisTemplate redis, String versionKey) {
		this.redis = redis;
		this.versionKey = versionKey;
		redis.opsForValue().set(versionKey, "0");
	}

	/** Call while holding the write lock: checks that nobody else is inside, and adds 2 to the version in two steps. */
	public void write() {
		if (this.writersInside.incrementAndGet() != 1 || this.readersInside.get() != 0) {
			this.violations.incrementAndGet();
		}
		long v = Long.parseLong(this.redis.opsForValue().get(this.versionKey));
		this.redis.opsForValue().set(this.versionKey, Long.toString(v + 1));
		this.redis.opsForValue().set(this.versionKey, Long.toString(v + 2));
		this.writersInside.decrementAndGet();
	}

	/** Call while holding the read lock: checks that no writer is inside and that the version stays even and still. */
	public void read() {
		this.readersInside.incrementAndGet();
		String seen = this.redis.opsForValue().get(this.versionKey);
		if (this.writersInside.get() != 0) {
			this.violations.incrementAndGet();
		}
		if (Long.parseLong(seen) % 2 != 0 || !seen.equals(this.redis.opsForValue().get(this.versionKey))) {
			this.tornReads.incrementAndGet();
		}
		this.readersInside.decrementAndGet();
	}

	/** @return how often someone found a holder inside that exclusion forbids */
	public int violations() {
		return this.violations.get();
	}

	/** @return how often a reader saw a write in progress, or one made while it read */
	public int tornReads() {
		return this.tornReads.get();
	}

	/** @return the version in Redis: 2 per write */
	public long version() {
		return Long.parseLong(this.redis.opsForValue().get(this.versionKey));
	}

}
