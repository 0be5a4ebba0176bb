package io.github.distributedlock.smoke;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP calls to an application under test on 127.0.0.1, with {@code java.net.http}. Thread-safe.
 */
public final class SmokeHttp {

	private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	/** How long a call may take: locked calls wait for each other on a slow machine. */
	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private SmokeHttp() {
	}

	/**
	 * Sends a GET and waits for the answer.
	 * @param port the application's HTTP port
	 * @param path the path, such as {@code /actuator/health}
	 * @return the answer, whatever its status
	 * @throws UncheckedIOException if the call fails
	 */
	public static HttpResponse<String> get(int port, String path) {
		return send(HttpRequest.newBuilder(uri(port, path)).timeout(TIMEOUT).GET().build());
	}

	/**
	 * Sends a POST without a body, without waiting for the answer.
	 * @param port the application's HTTP port
	 * @param path the path
	 * @return the answer to come
	 */
	public static CompletableFuture<HttpResponse<String>> postAsync(int port, String path) {
		return CLIENT.sendAsync(HttpRequest.newBuilder(uri(port, path)).timeout(TIMEOUT)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Sends a GET without waiting for the answer.
	 * @param port the application's HTTP port
	 * @param path the path
	 * @return the answer to come
	 */
	public static CompletableFuture<HttpResponse<String>> getAsync(int port, String path) {
		return CLIENT.sendAsync(HttpRequest.newBuilder(uri(port, path)).timeout(TIMEOUT).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static HttpResponse<String> send(HttpRequest request) {
		try {
			return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static URI uri(int port, String path) {
		return URI.create("http://127.0.0.1:" + port + path);
	}

}
