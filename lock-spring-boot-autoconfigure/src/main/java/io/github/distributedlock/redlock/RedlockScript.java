package io.github.distributedlock.redlock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.lettuce.core.ScriptOutputType;

/**
 * The Lua scripts of the Redlock store, each in its documented file under
 * {@code io/github/distributedlock/redlock/}: read once, with its SHA1 computed once (what {@code EVALSHA} names
 * it by), immutable and thread-safe.
 *
 * @param source the script's text
 * @param sha1 the SHA1 of the text, 40 lowercase hex digits, as Redis's script cache names it
 * @param output how Lettuce reads its reply
 */
record RedlockScript(String source, String sha1, ScriptOutputType output) {

	/** Phase 1: a node's vote, {@code {granted, counter or pttl}}. */
	static final RedlockScript VOTE = load("vote.lua", ScriptOutputType.MULTI);

	/** Phase 2: records the chosen fencing token where the attempt still holds the key; 1 or 0. */
	static final RedlockScript RECORD = load("record.lua", ScriptOutputType.INTEGER);

	/** Renewal: extends the lease where the attempt still holds the key; 1 or 0. */
	static final RedlockScript EXTEND = load("extend.lua", ScriptOutputType.INTEGER);

	/**
	 * Release or withdrawal, with a withdrawal marker where a vote never answered, or a keep until a minimum hold
	 * ends; 1 or 0.
	 */
	static final RedlockScript RELEASE = load("release.lua", ScriptOutputType.INTEGER);

	/** Reads a lock on one node for the Actuator endpoint: {@code {kind, pttl, owner, token, waited}}. */
	static final RedlockScript INSPECT = load("inspect.lua", ScriptOutputType.MULTI);

	/** Force-releases a lock on one node, whoever holds it: 1, 0, or -1 for a key of another type. */
	static final RedlockScript FORCE_RELEASE = load("force_release.lua", ScriptOutputType.INTEGER);

	/** The startup check of a node's ACL user: a list of what the node refused (see {@code RedlockNodeChecks}). */
	static final RedlockScript PROBE = load("probe.lua", ScriptOutputType.MULTI);

	private static RedlockScript load(String file, ScriptOutputType output) {
		try (InputStream in = RedlockScript.class.getResourceAsStream(file)) {
			if (in == null) {
				throw new IllegalStateException("Redlock script " + file + " is missing from the classpath");
			}
			String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return new RedlockScript(source, sha1(source), output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Redlock script " + file, ex);
		}
	}

	private static String sha1(String source) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			// every Java platform has SHA-1 (MessageDigest's javadoc)
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

}
