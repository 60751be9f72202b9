using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The websockets open on one endpoint or listener: admitted up to a cap (503 beyond), and closed with 1001
/// on shutdown.</summary>
internal sealed class WebSocketRegistry(int maxOpen)
{
    private readonly ConcurrentDictionary<WebSocketConnection, byte> _open = new();
    private volatile bool _stopping;

    public int Count => _open.Count;

    /// <summary>The cap (the core's count of handshakes under way and websockets open); null when there is none.</summary>
    public WebSocketAdmission? Admission { get; } = maxOpen == WebSocketAcceptOptions.Unlimited ? null : new WebSocketAdmission(maxOpen);

    /// <summary>
    /// Runs one accepted websocket: counted as open while <paramref name="application"/> runs; a Close 1011 when the
    /// application throws with the websocket open (the exception then propagates); a websocket the application left
    /// open is closed with 1000, and in every case the end of the close handshake is awaited.
    /// </summary>
    /// <returns>How the websocket ended.</returns>
    public async Task<WebSocketCloseInfo> RunAsync(
        WebSocketConnection connection, Func<Task> application, Action<Exception>? onFailed = null)
    {
        _open.TryAdd(connection, 0);
        if (_stopping)
        {
            _ = CloseQuietlyAsync(connection); // accepted as the server began to stop (after the others were closed)
        }

        try
        {
            try
            {
                await application().ConfigureAwait(false);
            }
            catch (Exception error) when (!connection.Completion.IsCompleted)
            {
                onFailed?.Invoke(error);
                await connection.CloseAsync(CloseStatus.InternalError, "internal error").ConfigureAwait(false);
                throw;
            }

            return await connection.CloseAsync().ConfigureAwait(false);
        }
        finally
        {
            _open.TryRemove(connection, out _);
        }
    }

    /// <summary>
    /// On <see cref="IHostApplicationLifetime.ApplicationStopping"/>, which comes before the server stops (and, over
    /// HTTP/2, before Kestrel's GOAWAY), sends Close 1001 on every open websocket. Kestrel then waits, within the host's
    /// shutdown timeout, for the endpoints to return, and each does once its close handshake ends (answered, or after
    /// the close timeout).
    /// </summary>
    public void CloseOnShutdown(IServiceProvider services)
    {
        services.GetService<IHostApplicationLifetime>()?.ApplicationStopping.Register(() =>
        {
            _stopping = true; // before the walk: a websocket added meanwhile is seen here or sees this
            foreach (WebSocketConnection connection in _open.Keys)
            {
                _ = CloseQuietlyAsync(connection);
            }
        });
    }

    private static async Task CloseQuietlyAsync(WebSocketConnection connection)
    {
        try
        {
            // The driver's close, not the connection's: that one starts a discarding read loop on a websocket the
            // application has not started yet, and the application's own RunAsync would then fail. The Close goes out
            // now either way; the application's loop (or, when the application returns without one, the close in
            // RunAsync above) reads the answer.
            await connection.Driver.CloseAsync(CloseStatus.GoingAway, "server shutting down").ConfigureAwait(false);
        }
        catch (Exception error) when (error is InvalidOperationException or IOException or OperationCanceledException)
        {
            connection.Abort();
        }
    }
}
