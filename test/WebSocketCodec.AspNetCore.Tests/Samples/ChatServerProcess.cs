using System.Globalization;
using WebSocketCodec.Samples.Chat;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary><c>samples/Chat</c> as its own process on a port given in advance (so it can be stopped and started again
/// on the same one): up once it printed <c>listening on</c>; stopped with SIGTERM, which closes its websockets with
/// 1001 first.</summary>
internal sealed class ChatServerProcess : IDisposable
{
    // Directly (no proxy from the environment), trusting the self-signed certificate of --tls.
    private static readonly HttpClient Http = new(new SocketsHttpHandler
    {
        UseProxy = false,
        SslOptions = { RemoteCertificateValidationCallback = (_, _, _, _) => true },
    });
    private readonly ConsoleSampleProcess _process;

    private ChatServerProcess(ConsoleSampleProcess process, int port, bool tls)
    {
        _process = process;
        Port = port;
        Tls = tls;
    }

    /// <summary>Its port.</summary>
    public int Port { get; }

    /// <summary>Whether it serves TLS (a self-signed certificate).</summary>
    public bool Tls { get; }

    /// <summary>What it printed.</summary>
    public string Output => _process.Output;

    /// <summary>Starts the server on <paramref name="port"/> and waits until it listens.</summary>
    public static async Task<ChatServerProcess> StartAsync(int port, TimeSpan timeout, bool tls = false)
    {
        string[] arguments = ["--host", "127.0.0.1", "--port", port.ToString(CultureInfo.InvariantCulture), .. tls ? (string[])["--tls"] : []];
        var process = ConsoleSampleProcess.Start($"chat:{port}", typeof(ChatServerHost).Assembly, null, arguments);
        try
        {
            await process.WaitForLineAsync(line => line.StartsWith("listening on ", StringComparison.Ordinal), timeout);
        }
        catch
        {
            process.Dispose();
            throw;
        }

        return new ChatServerProcess(process, port, tls);
    }

    /// <summary>A room's websocket URL.</summary>
    public string RoomUrl(string room) => $"{(Tls ? "wss" : "ws")}://127.0.0.1:{Port}/chat/{room}";

    /// <summary>Waits until the room has <paramref name="members"/> members (its websockets joined, as the server
    /// counts them at <c>/rooms/{room}</c>).</summary>
    public async Task WaitForMembersAsync(string room, int members, TimeSpan timeout)
    {
        using var deadline = new CancellationTokenSource(timeout);
        string counted = "";
        while (!deadline.IsCancellationRequested)
        {
            counted = await Http.GetStringAsync(new Uri($"{(Tls ? "https" : "http")}://127.0.0.1:{Port}/rooms/{room}"), deadline.Token);
            if (counted == members.ToString(CultureInfo.InvariantCulture))
            {
                return;
            }

            await Task.Delay(20, deadline.Token); // the polling step: the count has no event to wait for
        }

        throw new TimeoutException($"The room {room} had {counted} members, not {members}, after {timeout.TotalSeconds} s.");
    }

    /// <summary>Stops it with SIGTERM and waits for its exit.</summary>
    public async Task StopAsync(TimeSpan timeout)
    {
        _process.Signal("TERM");
        Assert.True(await _process.WaitForExitAsync(timeout), $"The chat server did not exit within {timeout}:\n{_process.Output}");
        int exitCode = _process.ExitCode;
        Assert.True(exitCode == 0, $"The chat server exited with {exitCode}:\n{_process.Output}");
    }

    /// <summary>Kills it if it still runs.</summary>
    public void Dispose() => _process.Dispose();
}
