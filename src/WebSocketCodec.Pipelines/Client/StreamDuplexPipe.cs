using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>An <see cref="IDuplexPipe"/> over a <see cref="Stream"/> (a socket's, an SslStream, an upgraded
/// request's): the reader and the writer both close the stream when completed.</summary>
/// <remarks>The reader first waits for data with a zero-byte read (Kestrel's upgrade and HTTP/2 request streams,
/// <see cref="System.Net.Security.SslStream"/> and <see cref="System.Net.Sockets.NetworkStream"/> support them) and
/// rents its buffer only when bytes are there, so an idle websocket holds no read buffer. Set
/// <c>zeroByteReads</c> to false for a stream that does not support them (one that returns 0 at once, or throws).
/// The writer fills 32 KiB buffers and a flush writes each buffer to the stream with one call: with the
/// 4 KiB default a read's worth of small echoed frames became eight stream writes (and, behind Kestrel's upgrade
/// stream, eight flushes). The buffers are pooled and held only while a write is under way.</remarks>
public sealed class StreamDuplexPipe : IDuplexPipe
{
    private const int WriteBufferSize = 32 * 1024;

    /// <summary>Wraps <paramref name="stream"/>.</summary>
    /// <param name="stream">The byte stream.</param>
    /// <param name="leaveOpen">Whether completing the pipe leaves the stream open.</param>
    /// <param name="bufferSize">The read buffer's segment size.</param>
    /// <param name="zeroByteReads">Whether the stream supports zero-byte reads (waits until data is available).</param>
    public StreamDuplexPipe(Stream stream, bool leaveOpen = false, int bufferSize = 16 * 1024, bool zeroByteReads = true)
    {
        ArgumentNullException.ThrowIfNull(stream);
        Input = PipeReader.Create(stream, new StreamPipeReaderOptions(
            bufferSize: bufferSize, minimumReadSize: 2048, leaveOpen: leaveOpen, useZeroByteReads: zeroByteReads));
        Output = PipeWriter.Create(stream, new StreamPipeWriterOptions(minimumBufferSize: WriteBufferSize, leaveOpen: leaveOpen));
    }

    /// <inheritdoc />
    public PipeReader Input { get; }

    /// <inheritdoc />
    public PipeWriter Output { get; }
}
