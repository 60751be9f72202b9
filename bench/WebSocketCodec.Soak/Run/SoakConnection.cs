using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Soak;

/// <summary>
/// One of our client's websockets in the soak (HTTP/1.1 or an HTTP/2 stream): sends its connection's messages as raw
/// frames through the frame sender (fragments and Pings between them, masked by the client role), with at most a
/// window of messages in flight, and checks on the read loop that every echo is byte-exact and in order and that every
/// Ping was answered, with its payload, before its message's echo. With permessage-deflate the sender compresses whole
/// messages and the session inflates echoes before they are checked. The client's decoder validates every server
/// frame (unmasked, opcodes, lengths, UTF-8); a violation ends the websocket and counts as a failure. Ends with a
/// clean close handshake.
/// </summary>
internal sealed class SoakConnection : IWebSocketFrameListener
{
    private readonly WebSocketConnection _channel;
    private readonly SoakTraffic _traffic;
    private readonly SoakCounts _counts;
    private readonly ArrayPool<byte> _payloads;
    private readonly string _name;
    private readonly SemaphoreSlim _window;
    private readonly ConcurrentQueue<SoakMessage> _expected = new();
    private readonly ConcurrentQueue<(long Sequence, byte[] Payload)> _pings = new();
    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _stop = new();
    private long _pingSequence;
    private long _answered = -1;
    private int _offset;
    private volatile bool _sendingDone;
    private volatile bool _failed;

    private readonly StrongBox<long> _progress;
    private readonly int _compressLimit; // with permessage-deflate: the longest whole message our sender compresses; else -1

    public SoakConnection(WebSocketConnection channel, SoakTraffic traffic, SoakCounts counts, ArrayPool<byte> payloads, int window, string name, StrongBox<long> progress)
    {
        _progress = progress;
        _channel = channel;
        _traffic = traffic;
        _counts = counts;
        _payloads = payloads;
        _window = new SemaphoreSlim(window, window);
        _name = name;
        _compressLimit = channel.Deflate is { } deflate && channel.Sender.CompressOutgoing ? deflate.MaxCompressedMessageLength(WebSocketRole.Client) : -1;
    }

    /// <summary>Sends messages until the planned frames (sent, and the echoes and Pongs expected) reach
    /// <paramref name="frameBudget"/>, waits for every echo, closes; failures are counted, not thrown.</summary>
    public async Task RunAsync(long frameBudget, CancellationToken cancellationToken)
    {
        using CancellationTokenRegistration stop = cancellationToken.Register(() => Fail("stopped: the segment was cancelled (stalled or timed out)"));
        Task<WebSocketCloseInfo> run = _channel.RunAsync(this, CancellationToken.None);
        try
        {
            await SendAllAsync(frameBudget).ConfigureAwait(false);
            _sendingDone = true;
            if (_expected.IsEmpty)
            {
                _drained.TrySetResult();
            }

            if (await Task.WhenAny(_drained.Task, run).ConfigureAwait(false) == run && !_failed)
            {
                Fail($"the websocket ended with {_expected.Count} echoes missing: {Describe(await run.ConfigureAwait(false))}");
            }
        }
        catch (Exception error) when (error is OperationCanceledException or InvalidOperationException or ObjectDisposedException)
        {
            if (!_failed)
            {
                Fail($"sending failed: {error.Message}");
            }
        }

        if (!_failed)
        {
            await _channel.CloseAsync(cancellationToken: CancellationToken.None).ConfigureAwait(false);
        }
        else
        {
            _channel.Abort();
        }

        WebSocketCloseInfo info = await run.ConfigureAwait(false);
        if (!_failed && !info.IsClean)
        {
            Fail($"the close was not clean: {Describe(info)}");
        }

        if (!_failed && !_pings.IsEmpty)
        {
            Fail($"{_pings.Count} Pings never answered");
        }

        while (_expected.TryDequeue(out SoakMessage? left))
        {
            left.Return(_payloads);
        }

        _stop.Dispose();
        _window.Dispose();
    }

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        if (_failed)
        {
            return;
        }

        _counts.FramesReceived++;
        _counts.BytesReceived += payload.Length;
        int boundary = SoakTraffic.BoundaryIndex(payload.Length);
        if (boundary >= 0)
        {
            _counts.BoundaryReceived[boundary]++;
        }

        if (!_expected.TryPeek(out SoakMessage? message))
        {
            Fail($"an echo ({opcode}, {payload.Length} B) arrived with no message in flight");
            return;
        }

        WebSocketOpcode want = _offset == 0 ? message.Opcode : WebSocketOpcode.Continuation;
        if (opcode != want || rsv != 0)
        {
            Fail($"message {message.Index}: echo frame is {opcode} (rsv {rsv}), expected {want}");
            return;
        }

        if (_offset + payload.Length > message.Length || !payload.SequenceEqual(message.Payload.Slice(_offset, payload.Length)))
        {
            Fail($"message {message.Index} ({message.Opcode}, {message.Length} B): the echo differs from what was sent at bytes {_offset}-{_offset + payload.Length}");
            return;
        }

        _offset += payload.Length;
        if (!fin)
        {
            return;
        }

        if (_offset != message.Length)
        {
            Fail($"message {message.Index}: the echo ended after {_offset} of {message.Length} B");
            return;
        }

        if (Volatile.Read(ref _answered) < message.LastPing)
        {
            Fail($"message {message.Index}: echoed before the Pong of its Ping {message.LastPing} (last answered {_answered})");
            return;
        }

        _offset = 0;
        _expected.TryDequeue(out _);
        message.Return(_payloads);
        _counts.MessagesVerified++;
        Interlocked.Increment(ref _progress.Value);
        _window.Release();
        if (_sendingDone && _expected.IsEmpty)
        {
            _drained.TrySetResult();
        }
    }

    public void OnPong(ReadOnlySpan<byte> payload)
    {
        if (_failed)
        {
            return;
        }

        _counts.FramesReceived++;
        _counts.PongsReceived++;
        // One Pong may answer several Pings in a row (the latest): those before it are answered by it.
        while (_pings.TryDequeue(out (long Sequence, byte[] Payload) ping))
        {
            _counts.PingsAnswered++;
            if (payload.SequenceEqual(ping.Payload))
            {
                Volatile.Write(ref _answered, ping.Sequence);
                return;
            }
        }

        Fail($"a Pong of {payload.Length} B matches no Ping sent");
    }

    public void OnClose(WebSocketCloseInfo info)
    {
        if (!_sendingDone || !_expected.IsEmpty)
        {
            _stop.Cancel(); // the sender waits no longer
        }
    }

    private async Task SendAllAsync(long frameBudget)
    {
        WebSocketFrameSender sender = _channel.Sender;
        long planned = 0;
        while (planned < frameBudget && !_failed)
        {
            await _window.WaitAsync(_stop.Token).ConfigureAwait(false);
            SoakMessage message = _traffic.Next(_payloads);
            planned += message.FramesSent + 1 + message.Pings; // its frames, the echo, the Pongs at most
            Count(message);
            _expected.Enqueue(message);
            int start = 0;
            for (int i = 0; i < message.FragmentEnds.Length; i++)
            {
                int end = message.FragmentEnds[i];
                bool fin = i == message.FragmentEnds.Length - 1;
                await sender.SendAsync(i == 0 ? message.Opcode : WebSocketOpcode.Continuation, message.Buffer.AsMemory(start, end - start), fin, _stop.Token).ConfigureAwait(false);
                start = end;
                if (!fin && message.PingsAfter[i] is { } ping)
                {
                    long sequence = _pingSequence++;
                    message.LastPing = sequence;
                    _pings.Enqueue((sequence, ping));
                    await sender.SendAsync(WebSocketOpcode.Ping, ping, true, _stop.Token).ConfigureAwait(false);
                }
            }
        }
    }

    private void Count(SoakMessage message)
    {
        _counts.Messages++;
        _counts.FramesSent += message.FramesSent;
        _counts.BytesSent += message.Length;
        _counts.TextMessages += message.Opcode == WebSocketOpcode.Text ? 1 : 0;
        _counts.SizeClasses[SoakTraffic.SizeClass(message.Length)]++;
        _counts.PingsSent += message.Pings;
        // The sender compresses a whole message (one frame) up to the window's limit; the soak offers threshold 0.
        _counts.CompressedSent += !message.IsFragmented && message.Length <= _compressLimit ? 1 : 0;
        if (message.IsFragmented)
        {
            _counts.FragmentedMessages++;
            _counts.Fragments += message.FragmentEnds.Length;
            _counts.SplitsInsideCharacter += message.SplitsInsideCharacter;
        }

        int start = 0;
        foreach (int end in message.FragmentEnds)
        {
            int boundary = SoakTraffic.BoundaryIndex(end - start);
            if (boundary >= 0)
            {
                _counts.BoundarySent[boundary]++;
            }

            start = end;
        }
    }

    private void Fail(string description)
    {
        if (_failed)
        {
            return;
        }

        _failed = true;
        _counts.Fail($"{_name}: {description}");
        try
        {
            _stop.Cancel();
        }
        catch (ObjectDisposedException)
        {
        }

        _drained.TrySetResult();
    }

    private static string Describe(WebSocketCloseInfo info) =>
        $"status {info.Status}, violation {info.Violation}, ended by {info.EndReason}, error {info.Error?.Message ?? "none"}";
}
