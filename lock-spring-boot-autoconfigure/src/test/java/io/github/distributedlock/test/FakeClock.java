package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A wall clock that a test jumps forward under one {@code redis-server} process, as an NTP step or an operator
 * would, with Debian's libfaketime (package {@code faketime}) preloaded into that process. The offset is read from
 * a file on every clock call ({@code FAKETIME_TIMESTAMP_FILE}, {@code FAKETIME_NO_CACHE=1}), so a running server
 * sees a {@link #jump(Duration) jump} at once; only the wall clock moves ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}),
 * which is what a stepped clock does: {@code TIME} and key expiry move, the event loop's timers do not.
 * <p>
 * glibc's {@code libc.so.6} is preloaded after libfaketime so that {@code malloc} is glibc's, not the jemalloc
 * that Debian's {@code redis-server} links: libfaketime's start-up allocates, jemalloc's start-up reads the clock,
 * and the two recurse until the process hangs (libfaketime issue 130, "libfaketime clashes with jemalloc"). Redis
 * then allocates with glibc; its allocator statistics still name jemalloc. Not thread-safe: one test moves one clock.
 */
public final class FakeClock implements AutoCloseable {

	/** Where Debian installs the preload library, per architecture triplet ({@code x86_64-linux-gnu}, ...). */
	private static final Path LIBRARY_ROOT = Path.of("/usr/lib");

	private static final String LIBRARY = "faketime/libfaketime.so.1";

	private final Path library;

	private final Path offsetFile;

	private long offsetSeconds;

	private FakeClock(Path library, Path offsetFile) {
		this.library = library;
		this.offsetFile = offsetFile;
	}

	/**
	 * Tells whether Debian's {@code faketime} package is installed: the {@code faketime} binary and its preload
	 * library.
	 * @return {@code true} if both are there
	 */
	public static boolean installed() {
		return library() != null && Files.isExecutable(Path.of("/usr/bin/faketime"));
	}

	/**
	 * Skips the calling test, naming what is missing, unless Debian's {@code faketime} package is installed.
	 * @throws org.opentest4j.TestAbortedException if it is not
	 */
	public static void assumeInstalled() {
		Assumptions.assumeTrue(installed(), "faketime is missing (Debian package faketime): /usr/bin/faketime and "
				+ LIBRARY_ROOT + "/<triplet>/" + LIBRARY);
	}

	/**
	 * Makes a clock at the real time (offset 0), skipping the calling test when libfaketime is missing.
	 * @return the clock; {@link #close()} deletes its file
	 * @throws org.opentest4j.TestAbortedException if {@code faketime} or its preload library is not installed
	 */
	public static FakeClock create() {
		assumeInstalled();
		Path library = Objects.requireNonNull(library());
		try {
			FakeClock clock = new FakeClock(library, Files.createTempFile("faketime", ".offset"));
			clock.write();
			return clock;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable Path library() {
		try (var dirs = Files.list(LIBRARY_ROOT)) {
			return dirs.map((dir) -> dir.resolve(LIBRARY)).filter(Files::isRegularFile).findFirst().orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	/**
	 * Starts a {@code redis-server} whose wall clock is this one.
	 * @param extraArgs further {@code redis-server} arguments
	 * @return the running server; a restart keeps the clock
	 */
	public RedisServer startRedis(String... extraArgs) {
		return RedisServer.startWithEnvironment(environment(), extraArgs);
	}

	/**
	 * Returns the environment variables that put a process on this clock.
	 * @return {@code LD_PRELOAD} and libfaketime's settings
	 */
	public Map<String, String> environment() {
		// a bare libc.so.6 is found where the dynamic loader finds its dependencies
		return Map.of("LD_PRELOAD", this.library + " libc.so.6", "FAKETIME_TIMESTAMP_FILE",
				this.offsetFile.toString(), "FAKETIME_NO_CACHE", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1");
	}

	/**
	 * Moves the clock forward at once, for every process on it.
	 * @param forward how far, in whole seconds (a fraction is dropped)
	 */
	public void jump(Duration forward) {
		this.offsetSeconds += forward.toSeconds();
		write();
	}

	/**
	 * Sets the clock back to the real time: a jump backwards of its whole offset.
	 */
	public void reset() {
		this.offsetSeconds = 0;
		write();
	}

	/**
	 * Returns how far ahead of the real time the clock is.
	 * @return the offset
	 */
	public Duration offset() {
		return Duration.ofSeconds(this.offsetSeconds);
	}

	/** Writes the offset to a new file moved over the old one: a reader sees the old or the new, never a part. */
	private void write() {
		try {
			Path next = Files.createTempFile(this.offsetFile.getParent(), "faketime", ".next");
			Files.writeString(next, "+" + this.offsetSeconds + "\n");
			Files.move(next, this.offsetFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		try {
			Files.deleteIfExists(this.offsetFile);
		}
		catch (IOException ex) {
			// a temporary file
		}
	}

	@Override
	public String toString() {
		return "faketime +" + this.offsetSeconds + " s (" + List.of(this.library, this.offsetFile) + ")";
	}

}
