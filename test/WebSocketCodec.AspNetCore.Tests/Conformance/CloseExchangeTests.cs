using System.Diagnostics;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>How the server under test saw a websocket end.</summary>
/// <param name="SentStatus">The status of the server's Close.</param>
/// <param name="ReceivedStatus">The status of the peer's Close the server read, if any.</param>
/// <param name="TimedOut">Whether a timeout (the close timeout above all) ended it.</param>
/// <param name="Error">A transport or application error, if any.</param>
public sealed record ServerEnd(int? SentStatus, int? ReceivedStatus, bool TimedOut, string? Error);

/// <summary>
/// Every violation case of the conformance categories, watched to its very end: the server sends one Close with the
/// right status and ends its output (TCP FIN, or END_STREAM over HTTP/2) right after, whether the client answers or
/// not (the answering Close also comes behind more data frames, as from a peer that kept writing, and is never
/// processed: RFC 6455 section 7.1.7); once the client ends its side the server closes, not when a timeout runs out.
/// The server runs with a 60 s close timeout and every case is bounded at 10 s, so a case that only ends by the timeout
/// fails.
/// </summary>
/// <remarks>Server-agnostic (linked into the SpanNetty tests). Times from the client's last step (its answer, or the
/// server's Close when there is nothing to answer) to the end of the stream are printed; they are reported, never
/// asserted.</remarks>
public abstract class CloseExchangeTests(ITestOutputHelper output)
{
    private static readonly TimeSpan CaseBound = TimeSpan.FromSeconds(10);

    /// <summary>Opens a websocket to the echo of the server under test.</summary>
    protected abstract Task<RawWebSocket> OpenAsync(bool tls);

    /// <summary>The next websocket end the server recorded (the cases of a class run one after another).</summary>
    protected abstract Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken);

    /// <summary>Waits until the server counts no open websocket (where it counts them).</summary>
    protected virtual Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>A name for the printed times (host and protocol).</summary>
    protected abstract string Host { get; }

    /// <summary>One violation: the bytes that break the rules, the status the server must close with, and whether the
    /// violating frame was the peer's own Close (then the exchange is complete at once: nothing to answer).</summary>
    public sealed record Case(byte[] Bytes, int Status, bool IsOwnClose = false, bool DataBeforeAnswer = false);

    public static readonly IReadOnlyDictionary<string, Case> Cases = BuildCases();

    public static TheoryData<string, bool> All()
    {
        var data = new TheoryData<string, bool>();
        foreach (string name in Cases.Keys)
        {
            data.Add(name, false);
            data.Add(name, true);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(All))]
    public async Task TheCloseExchangeEndsWithTheTransportsClose(string name, bool tls)
    {
        Case violation = Cases[name];
        using var bound = new CancellationTokenSource(CaseBound);
        try
        {
            await RunAsync(violation, tls, bound.Token).WaitAsync(bound.Token);
        }
        catch (OperationCanceledException) when (bound.IsCancellationRequested)
        {
            Assert.Fail($"'{name}' did not end within {CaseBound.TotalSeconds} s (the server's close timeout is 60 s)");
        }
    }

    private async Task RunAsync(Case violation, bool tls, CancellationToken cancellationToken)
    {
        var clock = new Stopwatch();
        ServerEnd end;
        await using (RawWebSocket socket = await OpenAsync(tls))
        {
            await socket.SendAsync(violation.Bytes);
            int status = await ReadToCloseAsync(socket);
            Assert.Equal(violation.Status, status);
            clock.Start();
            if (!violation.IsOwnClose)
            {
                // The peer kept writing before it answered: the server skips those frames to reach the Close.
                byte[] data = violation.DataBeforeAnswer
                    ? [.. Enumerable.Range(0, 20).SelectMany(i => WireFrames.Client(WebSocketOpcode.Binary, new byte[i * 50]))]
                    : [];
                await SendIgnoringEndAsync(socket, [.. data, .. WireFrames.ClientClose(1000)]);
                clock.Restart();
            }

            Assert.True(await EndsAsync(socket), "a frame came after the server's Close");
            clock.Stop();
            output.WriteLine($"close-exchange {Host} {(tls ? "TLS" : "plain")}: the stream ended {clock.Elapsed.TotalMilliseconds:F1} ms after the exchange completed");

            // The server ended its side right after its Close (a half-close) and discards ours until it ends: end it.
            await EndIgnoringErrorsAsync(socket);
            end = await NextServerEndAsync(cancellationToken);
        }

        Assert.False(end.TimedOut, "the server ended the websocket by a timeout");
        Assert.Equal(violation.Status, end.SentStatus);
        Assert.True(end.Error is null || PeerEndIsReset, $"the server's websocket failed: {end.Error}");
        if (!violation.IsOwnClose)
        {
            // RFC 6455 section 7.1.7: after failing the connection the server processes nothing more, our answer included.
            Assert.Null(end.ReceivedStatus);
        }

        await WhenNoWebSocketIsOpenAsync(cancellationToken);
    }

    private static async Task<int> ReadToCloseAsync(RawWebSocket socket)
    {
        while (true)
        {
            var frame = await socket.ReadFrameAsync();
            Assert.True(frame is not null, "the stream ended without the server's Close");
            if (frame.Value.Opcode == WebSocketOpcode.Close)
            {
                return WireFrames.CloseStatusOf(frame.Value.Payload);
            }
        }
    }

    /// <summary>Whether the client's end of its side reaches the server as a reset it reports as an error.</summary>
    protected virtual bool PeerEndIsReset => false;

    /// <summary>Ends the client's side; a server that closed already (its own Close was the peer's) is not an error here.</summary>
    private static async Task EndIgnoringErrorsAsync(RawWebSocket socket)
    {
        try
        {
            await socket.EndOutputAsync();
        }
        catch (Exception error) when (error is IOException or System.Net.Sockets.SocketException or ObjectDisposedException)
        {
        }
    }

    /// <summary>Sends; a server that closed already (an HTTP/2 stream it ended, a reset) is not an error here.</summary>
    private static async Task SendIgnoringEndAsync(RawWebSocket socket, byte[] bytes)
    {
        try
        {
            await socket.SendAsync(bytes);
        }
        catch (IOException)
        {
        }
    }

    /// <summary>True when the stream ends (FIN, END_STREAM or a reset) with no further frame.</summary>
    private static async Task<bool> EndsAsync(RawWebSocket socket)
    {
        try
        {
            return await socket.ReadFrameAsync() is null;
        }
        catch (IOException)
        {
            return true; // reset after the exchange: the server closed with our answer still unread
        }
    }

    private static Dictionary<string, Case> BuildCases()
    {
        byte[] before = WireFrames.Client(WebSocketOpcode.Text, "before"u8);
        byte[] after = WireFrames.Client(WebSocketOpcode.Text, "after"u8);
        var cases = new Dictionary<string, Case>();
        (string Name, byte First, int Length)[] badFrames =
        [
            ("ping over 125 bytes", 0x89, 126), ("fragmented ping", 0x09, 1), ("fragmented pong", 0x0A, 1),
            ("RSV1", 0xC1, 1), ("RSV2", 0xA1, 1), ("RSV3", 0x91, 1), ("all RSV bits", 0xF1, 1),
            ("opcode 3", 0x83, 1), ("opcode 4", 0x84, 1), ("opcode 5", 0x85, 1), ("opcode 6", 0x86, 1), ("opcode 7", 0x87, 1),
            ("opcode B", 0x8B, 1), ("opcode C", 0x8C, 1), ("opcode D", 0x8D, 1), ("opcode E", 0x8E, 1), ("opcode F", 0x8F, 1),
            ("continuation of nothing", 0x80, 1),
        ];
        foreach (var (name, first, length) in badFrames)
        {
            cases[name] = new([.. before, .. WireFrames.Client(first, new byte[length]), .. after], 1002);
        }

        cases["opcode 3, data before the answer"] = new([.. before, .. WireFrames.Client(0x83, [1]), .. after], 1002, DataBeforeAnswer: true);
        cases["a new message inside a fragmented one"] = new(
            [.. WireFrames.Client(WebSocketOpcode.Text, "a"u8, fin: false), .. WireFrames.Client(WebSocketOpcode.Text, "b"u8)], 1002);
        cases["an unmasked frame"] = new([0x81, 0x02, (byte)'h', (byte)'i'], 1002);

        (string Name, byte[] Text)[] invalidUtf8 =
        [
            ("surrogate", [0xCE, 0xBA, 0xED, 0xA0, 0x80, 0x65]), ("overlong", [0xC0, 0xAF]), ("over U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
            ("0xFE", [0xFE]), ("overlong 3-byte", [0xE0, 0x80, 0xAF]), ("lone continuation", [0x80]), ("truncated", [0xCE, 0xBA, 0xE1]),
        ];
        foreach (var (name, text) in invalidUtf8)
        {
            cases[$"invalid UTF-8: {name}"] = new(WireFrames.Client(WebSocketOpcode.Text, text), 1007);
            cases[$"invalid UTF-8 split at every byte: {name}"] = new(
                [.. text.SelectMany((b, i) => WireFrames.Client(i == 0 ? WebSocketOpcode.Text : WebSocketOpcode.Continuation, [b], fin: i == text.Length - 1))],
                1007, DataBeforeAnswer: name == "surrogate");
        }

        cases["invalid UTF-8 before the message ends"] = new(WireFrames.Client(WebSocketOpcode.Text, [0x61, 0xED, 0xA0, 0x80], fin: false), 1007);

        foreach (ushort code in (ushort[])[0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535])
        {
            cases[$"close code {code}"] = new(WireFrames.ClientClose(code), 1002, IsOwnClose: true);
        }

        cases["close code 1004 behind data"] = new([.. before, .. WireFrames.Client(WebSocketOpcode.Binary, new byte[3000]), .. WireFrames.ClientClose(1004)], 1002, IsOwnClose: true);
        cases["close of one byte"] = new(WireFrames.Client(WebSocketOpcode.Close, [0x03]), 1002, IsOwnClose: true);
        cases["close reason not UTF-8"] = new(WireFrames.Client(WebSocketOpcode.Close, [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD]), 1007, IsOwnClose: true);
        cases["close of 126 bytes"] = new(WireFrames.Client(0x88, [0x03, 0xE8, .. new byte[124]]), 1002, IsOwnClose: true);
        cases["fragmented close"] = new(WireFrames.Client(0x08, [0x03, 0xE8]), 1002, IsOwnClose: true);
        cases["close with RSV1"] = new(WireFrames.Client(0xC8, [0x03, 0xE8]), 1002, IsOwnClose: true);

        // 16 MiB is the limit: a header announcing one byte more fails before any payload (which never comes).
        cases["a frame over the limit, announced"] = new([0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0x01, 1, 2, 3, 4], 1009);
        byte[] eightMiB = new byte[8 << 20];
        cases["fragments over the limit"] = new(
            [.. WireFrames.Client(WebSocketOpcode.Binary, eightMiB, fin: false), .. WireFrames.Client(WebSocketOpcode.Continuation, eightMiB, fin: false),
             .. WireFrames.Client(WebSocketOpcode.Continuation, [1])],
            1009, DataBeforeAnswer: true);
        return cases;
    }
}
