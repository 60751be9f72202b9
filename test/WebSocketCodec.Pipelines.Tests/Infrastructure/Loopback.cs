using System.Buffers;
using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>
/// An in-memory connection: the server side is an <see cref="IDuplexPipe"/> for a <see cref="WebSocketConnection"/>; the
/// test plays the peer with raw bytes (or gives the other side to a second channel).
/// </summary>
public sealed class Loopback
{
    private readonly Pipe _toServer;
    private readonly Pipe _toClient;

    /// <summary>Creates the connection; with a pause threshold the writers wait for the readers, as sockets do.</summary>
    public Loopback(long pauseWriterThreshold = 0, MemoryPool<byte>? pool = null)
    {
        var options = new PipeOptions(pool, pauseWriterThreshold: pauseWriterThreshold, resumeWriterThreshold: pauseWriterThreshold / 2, useSynchronizationContext: false);
        _toServer = new Pipe(options);
        _toClient = new Pipe(options);
        Server = new Duplex(_toServer.Reader, _toClient.Writer);
        Client = new Duplex(_toClient.Reader, _toServer.Writer);
    }

    /// <summary>The server's end.</summary>
    public IDuplexPipe Server { get; }

    /// <summary>The client's end.</summary>
    public IDuplexPipe Client { get; }

    public static CancellationToken Timeout(int seconds = 10) => new CancellationTokenSource(TimeSpan.FromSeconds(seconds)).Token;

    /// <summary>Sends raw bytes to the server, flushed.</summary>
    public async Task SendAsync(params byte[] bytes)
    {
        await _toServer.Writer.WriteAsync(bytes, Timeout());
    }

    /// <summary>Sends raw bytes to the server, flushed, with the caller's token.</summary>
    public async Task SendAsync(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken) =>
        await _toServer.Writer.WriteAsync(bytes, cancellationToken);

    /// <summary>The server closes with 1000, this peer answers, the close must be clean; then the server is disposed.</summary>
    public async Task CloseCleanlyAsync(MessageWebSocket server)
    {
        Task<WebSocketCloseInfo> closing = server.CloseAsync((CloseStatus)1000, null, Timeout());
        await SendAsync(WireFrames.ClientClose(1000));
        Assert.True((await closing).IsClean);
        await server.DisposeAsync();
    }

    /// <summary>Sends each byte in its own flush, so the server reads them one at a time.</summary>
    public async Task SendByteByByteAsync(byte[] bytes)
    {
        foreach (byte b in bytes)
        {
            await _toServer.Writer.WriteAsync(new[] { b }, Timeout());
        }
    }

    /// <summary>Closes the client's sending direction (a FIN).</summary>
    public Task FinAsync() => _toServer.Writer.CompleteAsync().AsTask();

    /// <summary>Reads what the server sent until it closes its output.</summary>
    public async Task<byte[]> ReadToEndAsync(int seconds = 10)
    {
        var received = new ArrayBufferWriter<byte>();
        CancellationToken timeout = Timeout(seconds);
        while (true)
        {
            ReadResult result = await _toClient.Reader.ReadAsync(timeout);
            foreach (ReadOnlyMemory<byte> segment in result.Buffer)
            {
                received.Write(segment.Span);
            }

            _toClient.Reader.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted)
            {
                return received.WrittenSpan.ToArray();
            }
        }
    }

    /// <summary>Reads and discards what the server sends until it closes its output; returns the byte count.</summary>
    public async Task<long> DiscardToEndAsync(int seconds = 60)
    {
        long total = 0;
        CancellationToken timeout = Timeout(seconds);
        while (true)
        {
            ReadResult result = await _toClient.Reader.ReadAsync(timeout);
            total += result.Buffer.Length;
            _toClient.Reader.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted)
            {
                return total;
            }
        }
    }

    /// <summary>Reads at least <paramref name="count"/> bytes the server sent.</summary>
    public async Task<byte[]> ReadAsync(int count, int seconds = 10)
    {
        CancellationToken timeout = Timeout(seconds);
        while (true)
        {
            ReadResult result = await _toClient.Reader.ReadAsync(timeout);
            if (result.Buffer.Length >= count || result.IsCompleted)
            {
                byte[] bytes = result.Buffer.ToArray();
                _toClient.Reader.AdvanceTo(result.Buffer.End);
                return bytes;
            }

            _toClient.Reader.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
    }

    /// <summary>Bytes the server sent and nobody read yet, without consuming them.</summary>
    public long ServerBytesPending()
    {
        if (_toClient.Reader.TryRead(out ReadResult result))
        {
            long length = result.Buffer.Length;
            _toClient.Reader.AdvanceTo(result.Buffer.Start);
            return length;
        }

        return 0;
    }

    /// <summary>Consumes what the server sent so far, without waiting (nobody waits on the pipe, so nothing is
    /// scheduled); returns the byte count.</summary>
    public long DiscardPending()
    {
        if (!_toClient.Reader.TryRead(out ReadResult result))
        {
            return 0;
        }

        long length = result.Buffer.Length;
        _toClient.Reader.AdvanceTo(result.Buffer.End);
        return length;
    }

    /// <summary>Whether the server has closed its output, without waiting.</summary>
    public bool ServerOutputCompleted()
    {
        if (_toClient.Reader.TryRead(out ReadResult result))
        {
            bool completed = result.IsCompleted;
            _toClient.Reader.AdvanceTo(result.Buffer.Start, result.Buffer.End);
            return completed;
        }

        return false;
    }

    private sealed class Duplex(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
