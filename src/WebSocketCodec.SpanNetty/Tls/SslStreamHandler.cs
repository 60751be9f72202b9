using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>TLS for a SpanNetty pipeline, on .NET's own <see cref="SslStream"/> (TLS 1.2 and 1.3, ALPN): put it in the
/// pipeline ahead of the websocket handlers for <c>wss://</c> (and for HTTP/2 with ALPN), in place of SpanNetty's
/// <c>TlsHandler</c>.</summary>
/// <remarks>SpanNetty's <c>TlsHandler</c> stalls its handshake when the peer's first application bytes arrive together
/// with the end of the handshake: here, decrypted reading starts the moment the handshake completes and takes whatever
/// already arrived, so an upgrade request sent in the same segment as the client's Finished is served at once.
/// Everything runs on the channel's event loop; application writes made before the handshake completes wait for
/// it.</remarks>
public sealed class SslStreamHandler : ChannelDuplexHandler
{
    private const int RecordBufferSize = 16 * 1024 + 512; // a TLS record's plaintext, with room to spare

    private readonly SslServerAuthenticationOptions? _server;
    private readonly SslClientAuthenticationOptions? _client;
    private readonly TimeSpan _handshakeTimeout;
    private readonly Queue<(IByteBuffer Buffer, IPromise Promise)> _pendingWrites = new();
    private readonly TaskCompletionSource<SslApplicationProtocol> _handshake = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IChannelHandlerContext? _context;
    private ChannelStream? _network;
    private SslStream? _ssl;
    private IScheduledTask? _timeout;
    private bool _started;
    private bool _inChannelRead; // a transport read is being handled: its ChannelReadComplete follows
    private bool _authenticated;
    private bool _closed;

    private SslStreamHandler(SslServerAuthenticationOptions? server, SslClientAuthenticationOptions? client, TimeSpan handshakeTimeout)
    {
        _server = server;
        _client = client;
        _handshakeTimeout = handshakeTimeout;
    }

    /// <summary>Completes with the negotiated application protocol when the handshake is done; faults if it fails.</summary>
    public Task<SslApplicationProtocol> HandshakeCompletion => _handshake.Task;

    /// <summary>The TLS stream (protocol, cipher, certificates) once the handler is in a pipeline.</summary>
    public SslStream? SslStream => _ssl;

    /// <summary>The certificate the peer presented, once the handshake completed; null before, or when it presented
    /// none (a copy, not tied to the stream's life). On a server that is the client's certificate: set <see cref="SslServerAuthenticationOptions.ClientCertificateRequired"/>
    /// and a <see cref="SslServerAuthenticationOptions.RemoteCertificateValidationCallback"/> (without one, the chain
    /// must build to a root the machine trusts) to require and check one; the websocket server hands it to the
    /// application as <see cref="WebSocketServerRequest.ClientCertificate"/>.</summary>
    public X509Certificate2? RemoteCertificate { get; private set; }

    /// <summary>The server's side with <paramref name="certificate"/>.</summary>
    public static SslStreamHandler Server(X509Certificate2 certificate, TimeSpan? handshakeTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        return Server(new SslServerAuthenticationOptions { ServerCertificate = certificate }, handshakeTimeout);
    }

    /// <summary>The server's side with full options (certificate or selector, protocols, ALPN, client certificates).</summary>
    public static SslStreamHandler Server(SslServerAuthenticationOptions options, TimeSpan? handshakeTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new SslStreamHandler(options, null, handshakeTimeout ?? TimeSpan.FromSeconds(10));
    }

    /// <summary>The client's side (set <see cref="SslClientAuthenticationOptions.TargetHost"/>).</summary>
    public static SslStreamHandler Client(SslClientAuthenticationOptions options, TimeSpan? handshakeTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new SslStreamHandler(null, options, handshakeTimeout ?? TimeSpan.FromSeconds(10));
    }

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _context = context;
        _network = new ChannelStream(context);
        _ssl = new SslStream(_network, leaveInnerStreamOpen: false);
        if (context.Channel.IsActive)
        {
            Start(context);
        }
    }

    /// <inheritdoc />
    public override void ChannelActive(IChannelHandlerContext context)
    {
        Start(context);
        context.FireChannelActive();
    }

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is not IByteBuffer buffer)
        {
            context.FireChannelRead(message);
            return;
        }

        // The SslStream goes on inline: handshake steps, then decrypted records fired down the pipeline.
        _inChannelRead = true;
        try
        {
            _network!.Feed(buffer);
        }
        finally
        {
            _inChannelRead = false;
        }

        FlushIfWritten(context);
    }

    /// <inheritdoc />
    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (message is not IByteBuffer buffer)
        {
            _ = context.WriteAsync(message, promise);
            return;
        }

        if (_closed)
        {
            // TLS ended (a failed handshake: an HTTP/2 codec's GOAWAY written as the channel closes, say): nothing is
            // sent any more, and a write queued now would never be released.
            buffer.Release();
            promise.TrySetException(new ClosedChannelException());
            return;
        }

        if (!_authenticated || _pendingWrites.Count > 0)
        {
            _pendingWrites.Enqueue((buffer, promise));
            return;
        }

        Encrypt(buffer, promise);
    }

    /// <summary>Whether the network writes of flushed records are tracked (<see cref="LastNetworkWrite"/>): on once a
    /// websocket is about to end its output behind its last record.</summary>
    internal bool TrackNetworkWrites { get; set; }

    /// <summary>The network write of the records flushed last while tracked: when it completes, everything encrypted
    /// before it reached the transport (a write's own promise completes once it is encrypted).</summary>
    internal Task LastNetworkWrite { get; private set; } = Task.CompletedTask;

    /// <inheritdoc />
    public override void Flush(IChannelHandlerContext context)
    {
        if (_authenticated)
        {
            WritePending();
            context.Flush();
        }
    }

    private Task? WritePending()
    {
        Task? sent = _network!.WritePending(TrackNetworkWrites);
        if (TrackNetworkWrites && sent is not null)
        {
            LastNetworkWrite = sent;
        }

        return sent;
    }

    /// <summary>Ends TLS with a close_notify, then closes the channel once that record, and so everything written before
    /// it, reached the transport: a write that completed here only encrypted its bytes, and closing at once would cancel
    /// their network write (a websocket's last Close among them).</summary>
    public override void Close(IChannelHandlerContext context, IPromise promise)
    {
        if (!_authenticated || _closed || !context.Channel.IsActive)
        {
            _ = context.CloseAsync(promise);
            return;
        }

        try
        {
            // The network stream completes its writes at once: the close_notify is in its output now.
            _ = _ssl!.ShutdownAsync().ContinueWith(
                static done => _ = done.Exception, // a late failure only means no close_notify: observed, not rethrown
                CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
        catch (Exception error) when (error is IOException or InvalidOperationException or ObjectDisposedException)
        {
            // No close_notify (a write failed or TLS already ended): close behind what is there.
        }

        Task sent = _network!.WritePending(track: true) ?? Task.CompletedTask;
        context.Flush();
        if (sent.IsCompleted)
        {
            _ = context.CloseAsync(promise);
            return;
        }

        _ = sent.ContinueWith(
            static (_, state) =>
            {
                var (ctx, p) = ((IChannelHandlerContext, IPromise))state!;
                _ = ctx.CloseAsync(p);
            },
            (context, promise), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Shut(new ClosedChannelException());
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Shut(new ClosedChannelException());

    private void Start(IChannelHandlerContext context)
    {
        if (_started)
        {
            return;
        }

        _started = true;
        _timeout = context.Executor.Schedule(
            static state => ((SslStreamHandler)state).Fail(new TimeoutException("The TLS handshake did not complete in time.")), this, _handshakeTimeout);
        _ = HandshakeAsync();
        FlushIfWritten(context); // a client's hello
    }

    private async Task HandshakeAsync()
    {
        try
        {
            Task authenticating = _server is not null
                ? _ssl!.AuthenticateAsServerAsync(_server, CancellationToken.None)
                : _ssl!.AuthenticateAsClientAsync(_client!, CancellationToken.None);
            await authenticating.ConfigureAwait(false);
        }
        catch (Exception error)
        {
            Fail(error);
            return;
        }

        // Inline, on the event loop (the network stream completes there).
        IChannelHandlerContext context = _context!;
        if (!context.Executor.InEventLoop)
        {
            context.Executor.Execute(static state => ((SslStreamHandler)state).OnAuthenticated(), this);
            return;
        }

        OnAuthenticated();
    }

    private void OnAuthenticated()
    {
        if (_closed)
        {
            return;
        }

        IChannelHandlerContext context = _context!;
        _timeout?.Cancel();
        _authenticated = true;
        // A copy: the stream's own may be disposed with it when the channel closes, and the application may keep this.
        RemoteCertificate = _ssl!.RemoteCertificate is { } remote ? X509CertificateLoader.LoadCertificate(remote.GetRawCertData()) : null;
        while (_pendingWrites.TryDequeue(out var pending))
        {
            Encrypt(pending.Buffer, pending.Promise);
        }

        FlushIfWritten(context);
        _handshake.TrySetResult(_ssl!.NegotiatedApplicationProtocol);
        context.FireUserEventTriggered(SslStreamHandshakeCompleted.Instance);
        _ = ReadLoopAsync(); // takes what arrived with the end of the handshake at once
    }

    /// <summary>Decrypts record by record into pooled buffers and fires them down the pipeline.</summary>
    private async Task ReadLoopAsync()
    {
        IChannelHandlerContext context = _context!;
        try
        {
            while (!_closed)
            {
                IByteBuffer plain = ThreadSafeAllocation.For(context.Allocator).Buffer(RecordBufferSize); // the loop may go on off the event loop
                int read;
                try
                {
                    read = await _ssl!.ReadAsync(plain.GetMemory(plain.WriterIndex, plain.Capacity - plain.WriterIndex)).ConfigureAwait(false);
                }
                catch
                {
                    plain.Release();
                    throw;
                }
                if (read == 0 || _closed)
                {
                    plain.Release();
                    return; // close_notify or the end of the input: ChannelInactive follows
                }

                plain.SetWriterIndex(plain.WriterIndex + read);
                RunOnLoop(context, plain);
            }
        }
        catch (Exception error) when (!_closed)
        {
            Fail(error);
        }
        catch (Exception)
        {
            // The channel closed under a pending read.
        }
    }

    private void RunOnLoop(IChannelHandlerContext context, IByteBuffer plain)
    {
        if (context.Executor.InEventLoop)
        {
            Fire(context, plain);
            return;
        }

        context.Executor.Execute(static (self, buffer) => ((SslStreamHandler)self).Fire(((SslStreamHandler)self)._context!, (IByteBuffer)buffer), this, plain);
    }

    /// <summary>Fires decrypted bytes; outside a transport read (bytes that came with the end of the handshake, or a
    /// record finished off the loop) the read cycle is ended here, so the handlers after this one flush.</summary>
    private void Fire(IChannelHandlerContext context, IByteBuffer plain)
    {
        context.FireChannelRead(plain);
        if (!_inChannelRead)
        {
            context.FireChannelReadComplete();
        }
    }

    private void Encrypt(IByteBuffer buffer, IPromise promise)
    {
        try
        {
            foreach (ReadOnlyMemory<byte> segment in buffer.UnreadSequence)
            {
                ValueTask writing = _ssl!.WriteAsync(segment);
                if (!writing.IsCompletedSuccessfully)
                {
                    // The network stream completes writes synchronously; anything else is a failure here.
                    writing.AsTask().GetAwaiter().GetResult();
                }
            }

            promise.TryComplete(); // encrypted: the network write follows (a close waits for it, see Close)
        }
        catch (Exception error)
        {
            promise.TrySetException(error);
            Fail(error);
        }
        finally
        {
            buffer.Release();
        }
    }

    private void FlushIfWritten(IChannelHandlerContext context)
    {
        if (_network is not null && WritePending() is not null)
        {
            context.Flush();
        }
    }

    private void Fail(Exception error)
    {
        if (_closed)
        {
            return;
        }

        _handshake.TrySetException(error);
        IChannelHandlerContext? context = _context;
        Shut(error);
        if (context is not null)
        {
            context.FireExceptionCaught(error);
            _ = context.CloseAsync();
        }
    }

    private void Shut(Exception reason)
    {
        if (_closed)
        {
            return;
        }

        _closed = true;
        _timeout?.Cancel();
        _handshake.TrySetException(reason);
        while (_pendingWrites.TryDequeue(out var pending))
        {
            pending.Promise.TrySetException(reason);
            ReferenceCountUtil.SafeRelease(pending.Buffer);
        }

        _network?.End();
        _network?.DiscardPending();
        _ssl?.Dispose();
    }
}
