using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>A websocket's transport over a <see cref="Stream"/>: wrap a stream in it to run a
/// <see cref="WebSocketConnection"/> over a socket's stream, an <see cref="System.Net.Security.SslStream"/>, Kestrel's
/// upgraded HTTP/1.1 stream, or an HTTP/2 (or HTTP/3) request stream. With an <c>endOutput</c> callback it can end our
/// direction alone (an HTTP/2 stream's END_STREAM while the peer's side stays readable).</summary>
/// <remarks>The reader first waits for data with a zero-byte read (Kestrel's upgrade and HTTP/2 request streams,
/// <see cref="System.Net.Security.SslStream"/> and <see cref="System.Net.Sockets.NetworkStream"/> support them) and
/// rents its buffer only when bytes are there, so an idle websocket holds no read buffer. Set
/// <c>zeroByteReads</c> to false for a stream that does not support them (one that returns 0 at once, or throws).
/// The writer fills 32 KiB buffers and a flush writes each buffer to the stream with one call, so a read's worth of
/// small echoed frames is one stream write, not several. The buffers are pooled and held only while a read or write
/// is under way.</remarks>
public sealed class StreamTransport : IWebSocketPipeTransport
{
    private const int WriteBufferSize = 32 * 1024;
    private readonly Func<ValueTask>? _endOutput;
    private readonly Action? _abort;
    private readonly Stream _stream;
    private readonly bool _leaveOpen;

    /// <summary>Wraps <paramref name="stream"/>.</summary>
    /// <param name="stream">The byte stream.</param>
    /// <param name="leaveOpen">Whether completing the pipe leaves the stream open.</param>
    /// <param name="bufferSize">The read buffer's segment size.</param>
    /// <param name="zeroByteReads">Whether the stream supports zero-byte reads (waits until data is available).</param>
    /// <param name="endOutput">Ends our direction after <see cref="Output"/> is completed, leaving the input
    /// readable (for example an HTTP/2 response's <c>CompleteAsync</c>); null when the stream cannot half-close.</param>
    /// <param name="writesFlush">Whether every write to the stream is flushed already (Kestrel's request and upgrade
    /// streams): the writer's flushes then make no second call into the stream.</param>
    /// <param name="abort">Tears the transport down at once (<see cref="Abort"/>): for example <c>HttpContext.Abort</c>,
    /// an HTTP/2 response's <c>Dispose</c> (RST_STREAM), a socket's <c>Dispose</c>. When null the stream is disposed,
    /// unless <paramref name="leaveOpen"/>.</param>
    public StreamTransport(
        Stream stream, bool leaveOpen = false, int bufferSize = 16 * 1024, bool zeroByteReads = true, Func<ValueTask>? endOutput = null,
        bool writesFlush = false, Action? abort = null)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentOutOfRangeException.ThrowIfLessThan(bufferSize, 1024);
        Input = PipeReader.Create(stream, new StreamPipeReaderOptions(
            bufferSize: bufferSize, minimumReadSize: bufferSize / 8, leaveOpen: leaveOpen, useZeroByteReads: zeroByteReads));
        Output = writesFlush
            ? PipeWriter.Create(new WriteFlushedStream(stream, leaveOpen), new StreamPipeWriterOptions(minimumBufferSize: WriteBufferSize, leaveOpen: false))
            : PipeWriter.Create(stream, new StreamPipeWriterOptions(minimumBufferSize: WriteBufferSize, leaveOpen: leaveOpen));
        _endOutput = endOutput;
        _abort = abort;
        _stream = stream;
        _leaveOpen = leaveOpen;
    }

    /// <inheritdoc />
    public PipeReader Input { get; }

    /// <inheritdoc />
    public PipeWriter Output { get; }

    /// <inheritdoc />
    public bool CanHalfClose => _endOutput is not null;

    /// <inheritdoc />
    public async ValueTask CloseOutputAsync()
    {
        await Output.CompleteAsync().ConfigureAwait(false);
        if (_endOutput is not null)
        {
            await _endOutput().ConfigureAwait(false);
        }
    }

    /// <inheritdoc />
    public void Abort()
    {
        if (_abort is not null)
        {
            _abort();
        }
        else if (!_leaveOpen)
        {
            _stream.Dispose();
        }
    }
}
