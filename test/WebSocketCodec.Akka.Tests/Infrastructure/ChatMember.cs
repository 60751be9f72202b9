using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net.WebSockets;
using System.Text;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>An independent chat member for the cluster tests: .NET's <see cref="ClientWebSocket"/> reading all the
/// time; it keeps every text it got with the time it arrived, apart from the set-up's probes (<c>probe:</c>), whose
/// senders it records.</summary>
public sealed class ChatMember : IAsyncDisposable
{
    /// <summary>The prefix of the set-up's probe texts.</summary>
    public const string Probe = "probe:";

    private readonly ClientWebSocket _socket;
    private readonly ConcurrentQueue<(string Text, long At)> _texts = new();
    private readonly ConcurrentDictionary<string, bool> _probes = new();
    private readonly Task _reading;
    private readonly SemaphoreSlim _sending = new(1, 1);

    private ChatMember(ClientWebSocket socket, Uri url)
    {
        _socket = socket;
        Url = url;
        _reading = Task.Run(ReadAsync);
    }

    /// <summary>Where it joined.</summary>
    public Uri Url { get; }

    /// <summary>The texts it got (probes aside), in order, with their arrival times (<see cref="Stopwatch"/> ticks).</summary>
    public IReadOnlyCollection<(string Text, long At)> Texts => _texts;

    /// <summary>The probes it got (their texts).</summary>
    public ICollection<string> Probes => _probes.Keys;

    /// <summary>Completes when the websocket ended: the server's close status, if it sent one.</summary>
    public Task<WebSocketCloseStatus?> Closed => _reading.ContinueWith(_ => _socket.CloseStatus, TaskScheduler.Default);

    /// <summary>Joins the room at <paramref name="url"/> (<c>ws://host:port/chat/room</c>).</summary>
    public static async Task<ChatMember> JoinAsync(Uri url, TimeSpan timeout)
    {
        var socket = new ClientWebSocket();
        using var bound = new CancellationTokenSource(timeout);
        await socket.ConnectAsync(url, bound.Token);
        return new ChatMember(socket, url);
    }

    /// <summary>Sends one text (sends of one member go one after another).</summary>
    public async Task SendAsync(string text)
    {
        await _sending.WaitAsync();
        try
        {
            using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
            await _socket.SendAsync(Encoding.UTF8.GetBytes(text), WebSocketMessageType.Text, true, bound.Token);
        }
        finally
        {
            _sending.Release();
        }
    }

    /// <summary>The texts whose prefix is <paramref name="prefix"/>, in arrival order.</summary>
    public List<string> TextsFrom(string prefix) => [.. _texts.Select(t => t.Text).Where(t => t.StartsWith(prefix, StringComparison.Ordinal))];

    public async ValueTask DisposeAsync()
    {
        if (_socket.State == WebSocketState.Open)
        {
            try
            {
                using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(5));
                await _socket.CloseAsync(WebSocketCloseStatus.NormalClosure, null, bound.Token);
            }
            catch (Exception error) when (error is WebSocketException or OperationCanceledException or IOException)
            {
            }
        }

        _socket.Abort();
        await _reading.WaitAsync(TimeSpan.FromSeconds(5)).ContinueWith(_ => { }, TaskScheduler.Default);
        _socket.Dispose();
        _sending.Dispose();
    }

    private async Task ReadAsync()
    {
        byte[] buffer = new byte[8192];
        var message = new MemoryStream();
        try
        {
            while (true)
            {
                WebSocketReceiveResult result = await _socket.ReceiveAsync(buffer, CancellationToken.None);
                if (result.MessageType == WebSocketMessageType.Close)
                {
                    return;
                }

                message.Write(buffer, 0, result.Count);
                if (!result.EndOfMessage)
                {
                    continue;
                }

                string text = Encoding.UTF8.GetString(message.GetBuffer(), 0, (int)message.Length);
                message.SetLength(0);
                if (text.StartsWith(Probe, StringComparison.Ordinal))
                {
                    _probes[text] = true;
                }
                else
                {
                    _texts.Enqueue((text, Stopwatch.GetTimestamp()));
                }
            }
        }
        catch (Exception error) when (error is WebSocketException or OperationCanceledException or IOException or ObjectDisposedException)
        {
            // The connection ended without a close handshake (a killed node, say).
        }
    }
}
