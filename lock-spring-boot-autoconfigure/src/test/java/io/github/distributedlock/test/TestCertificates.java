package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Certificates for TLS tests, made once per test JVM with the {@code openssl} CLI and the JDK's {@code keytool}
 * in a temporary directory: a CA, a server certificate it signed for {@code 127.0.0.1} and {@code localhost},
 * the CA in a PKCS12 trust store, and a second CA that signed nothing the servers use (a client that trusts only
 * it fails with {@code PKIX path building failed}).
 *
 * @param dir the directory the files are in
 */
public record TestCertificates(Path dir) {

	/** Password of {@link #trustStore()}. */
	public static final String TRUST_STORE_PASSWORD = "changeit";

	private static @Nullable TestCertificates made;

	/**
	 * Returns the certificates, made on first use.
	 * @return the certificates
	 * @throws IllegalStateException if {@code openssl} or {@code keytool} failed
	 */
	public static synchronized TestCertificates get() {
		if (made == null) {
			try {
				made = make(Files.createTempDirectory("redis-tls"));
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}
		return made;
	}

	/** @return the CA's certificate (PEM) */
	public Path caCertificate() {
		return this.dir.resolve("ca.crt");
	}

	/** @return the CA's certificate in a PKCS12 trust store, password {@link #TRUST_STORE_PASSWORD} */
	public Path trustStore() {
		return this.dir.resolve("truststore.p12");
	}

	/** @return the certificate (PEM) of a CA that signed nothing the servers use */
	public Path otherCaCertificate() {
		return this.dir.resolve("other-ca.crt");
	}

	/** @return the server's certificate (PEM) */
	public Path serverCertificate() {
		return this.dir.resolve("server.crt");
	}

	/** @return the server's private key (PEM, not encrypted) */
	public Path serverKey() {
		return this.dir.resolve("server.key");
	}

	private static TestCertificates make(Path dir) {
		String days = "2";
		run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
				"-days", days, "-subj", "/CN=Distributed Lock Test CA");
		run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out",
				"other-ca.crt", "-days", days, "-subj", "/CN=Some Other CA");
		run(dir, "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
				"-subj", "/CN=localhost");
		write(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
		run(dir, "openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
				"-CAcreateserial", "-out", "server.crt", "-days", days, "-extfile", "server.ext");
		Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
		run(dir, keytool.toString(), "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.crt", "-keystore",
				"truststore.p12", "-storetype", "PKCS12", "-storepass", TRUST_STORE_PASSWORD);
		return new TestCertificates(dir);
	}

	private static void write(Path file, String text) {
		try {
			Files.writeString(file, text, StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void run(Path dir, String... command) {
		try {
			Process process = new ProcessBuilder(new ArrayList<>(List.of(command))).directory(dir.toFile())
				.redirectErrorStream(true)
				.start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + command[0] + " (TLS tests need openssl and the JDK's "
					+ "keytool; .ci/run installs openssl)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
