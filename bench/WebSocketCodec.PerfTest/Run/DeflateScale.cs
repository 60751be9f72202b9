using System.Net;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// <c>--deflate --memory</c>: many websockets, measured in three steps so that set-up never falls inside a measured
/// figure. (1) Open every websocket, several handshakes at a time, and prime each one: it exchanges
/// <see cref="PerfOptions.PrimeMessages"/> compressed messages with the server, which then holds its inflater and
/// deflater for it. (2) With every websocket primed and idle, the server's memory (after a forced compacting
/// collection) less the same before any connected, per websocket. (3) Then every websocket sends (the usual window),
/// a warm-up, and the measured window: server CPU and allocations per message, with the server's core share to show
/// that the server, not the load, bounds the rate.
/// </summary>
internal static class DeflateScale
{
    /// <summary>Handshakes (and primings) in progress at once.</summary>
    private const int Parallel = 64;

    /// <summary>The <c>aspnetcore</c> echo's receive buffer per websocket in this mode: 4 KiB (a typical application's
    /// choice), or the payload when larger, so that a message is still one receive.</summary>
    public static int ReceiveBuffer(int payload) => Math.Max(4 * 1024, payload);

    /// <summary>Opens and primes <see cref="PerfOptions.Connections"/> websockets; disposes those it opened when one
    /// fails.</summary>
    public static async Task<LoadConnection[]> OpenAsync(IPEndPoint server, PerfOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        var opened = new LoadConnection?[options.Connections];
        try
        {
            await System.Threading.Tasks.Parallel.ForEachAsync(
                Enumerable.Range(0, options.Connections),
                new ParallelOptions { MaxDegreeOfParallelism = Parallel, CancellationToken = cancellationToken },
                async (i, token) =>
                {
                    LoadConnection connection = await LoadConnection.OpenAsync(server, tls: false, options.Payload, options.Window, options.ContextTakeover, token);
                    opened[i] = connection;
                    await connection.PrimeAsync(options.PrimeMessages, token);
                });
            return opened!;
        }
        catch
        {
            foreach (LoadConnection? connection in opened)
            {
                if (connection is not null)
                {
                    await connection.DisposeAsync();
                }
            }

            throw;
        }
    }
}
