using System.Diagnostics;
using System.Globalization;
using System.Text;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Broadcast.Cluster;

/// <summary>
/// The websockets of one run, all in this process (one clock for send and receipt): members reading a chat room, and
/// one publisher per node (a member too). A published text reads <c>P:SEQ:TICKS:padding</c>; every member checks that
/// each publisher's texts come in order, and the latest receipt of each text over all members is kept, so a text's
/// delivery time is from its send to its last member. Probes (<c>probe:P</c>) make sure every node knows every other
/// node's room before the run.
/// </summary>
internal sealed class ClusterMembers : IAsyncDisposable
{
    private readonly List<MessageWebSocket> _members = [];
    private readonly List<Uri> _urls = [];          // each member's node
    private Uri? _excluded;                         // a paused node: its members are not counted
    private readonly List<Task> _readers = [];
    private readonly int _publishers;
    private readonly int _perPublisher;
    private readonly int _warmUp;           // each publisher's first texts, not measured
    private readonly long[] _lastReceipt;   // [publisher * perPublisher + seq]: latest receipt (Stopwatch ticks)
    private readonly int[] _receipts;       // how many members got it
    private readonly bool[][] _probed;      // [member][publisher]
    private long _delivered;
    private int _outOfOrder;

    private ClusterMembers(int publishers, int perPublisher, int warmUp, int members)
    {
        _publishers = publishers;
        _perPublisher = perPublisher;
        _warmUp = warmUp;
        _lastReceipt = new long[publishers * perPublisher];
        _receipts = new int[publishers * perPublisher];
        _probed = [.. Enumerable.Range(0, members).Select(_ => new bool[publishers])];
    }

    public int Count => _members.Count;

    public long Delivered => Interlocked.Read(ref _delivered);

    public int OutOfOrder => Volatile.Read(ref _outOfOrder);

    public IReadOnlyList<MessageWebSocket> Publishers { get; private set; } = [];

    /// <summary>Opens <paramref name="perNode"/> members on each of <paramref name="urls"/>, plus one publisher on
    /// each of <paramref name="publisherUrls"/> (the publishers read too).</summary>
    public static async Task<ClusterMembers> OpenAsync(IReadOnlyList<Uri> urls, int perNode, IReadOnlyList<Uri> publisherUrls, int perPublisher, int warmUp)
    {
        int total = (urls.Count * perNode) + publisherUrls.Count;
        var members = new ClusterMembers(publisherUrls.Count, perPublisher, warmUp, total);
        var options = new WebSocketClientOptions { HandshakeTimeout = TimeSpan.FromSeconds(30) };
        var publishers = new List<MessageWebSocket>();
        foreach (Uri url in publisherUrls)
        {
            publishers.Add(await members.OpenOneAsync(url, options));
        }

        members.Publishers = publishers;
        for (int i = 0; i < perNode; i++)
        {
            foreach (Uri url in urls)
            {
                await members.OpenOneAsync(url, options);
            }
        }

        return members;
    }

    /// <summary>Every publisher probes until every member heard each (bounded).</summary>
    public async Task WhenEveryoneHearsEveryPublisherAsync(TimeSpan bound)
    {
        long start = Stopwatch.GetTimestamp();
        while (!_probed.All(member => member.All(heard => heard)))
        {
            if (Stopwatch.GetElapsedTime(start) > bound)
            {
                throw new TimeoutException("not every member heard every publisher's probe");
            }

            for (int p = 0; p < Publishers.Count; p++)
            {
                await Publishers[p].SendTextAsync($"probe:{p}");
            }

            await Task.Delay(300);
        }
    }

    /// <summary>Texts every member got of the measured ones: all when this equals publishers × per publisher × members.</summary>
    public long Expected => (long)_publishers * _perPublisher * Recipients;

    /// <summary>The members counted: all, or all but the excluded node's.</summary>
    public int Recipients => _excluded is null ? _members.Count : _urls.Count(url => url != _excluded);

    /// <summary>Leaves the members of the node at <paramref name="url"/> out of what is counted (a paused node's).</summary>
    public void Exclude(Uri url) => _excluded = url;

    /// <summary>Each measured text's delivery time to its last member, from its send stamp (texts not yet everywhere
    /// are left out; <see cref="Delivered"/> says whether all were).</summary>
    public List<TimeSpan> DeliveryTimes(long[] sentAt)
    {
        var times = new List<TimeSpan>(sentAt.Length);
        for (int i = 0; i < sentAt.Length; i++)
        {
            if (Volatile.Read(ref _receipts[i]) == Recipients)
            {
                times.Add(Stopwatch.GetElapsedTime(sentAt[i], Volatile.Read(ref _lastReceipt[i])));
            }
        }

        return times;
    }

    /// <summary>The latest receipt of any measured text.</summary>
    public long LastReceipt => _lastReceipt.Max();

    public async ValueTask DisposeAsync()
    {
        foreach (MessageWebSocket member in _members)
        {
            member.Abort();
        }

        await Task.WhenAll(_readers).WaitAsync(TimeSpan.FromSeconds(30)).ContinueWith(_ => { }, TaskScheduler.Default);
        foreach (MessageWebSocket member in _members)
        {
            await member.DisposeAsync();
        }
    }

    private async Task<MessageWebSocket> OpenOneAsync(Uri url, WebSocketClientOptions options)
    {
        MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(url, options);
        int index = _members.Count;
        _members.Add(socket);
        _urls.Add(url);
        _readers.Add(Task.Run(() => ReadAsync(socket, index)));
        return socket;
    }

    private async Task ReadAsync(MessageWebSocket socket, int index)
    {
        int[] next = new int[_publishers];
        try
        {
            while (await socket.ReceiveAsync() is { } message)
            {
                long now = Stopwatch.GetTimestamp();
                using (message)
                {
                    Parse(message.Payload.Span, index, now, next);
                }
            }
        }
        catch (Exception error) when (error is OperationCanceledException or ObjectDisposedException or IOException or InvalidOperationException)
        {
            // Aborted at the end of the run.
        }
    }

    private void Parse(ReadOnlySpan<byte> text, int member, long now, int[] next)
    {
        if (text.StartsWith("probe:"u8))
        {
            _probed[member][int.Parse(text[6..], CultureInfo.InvariantCulture)] = true;
            return;
        }

        int first = text.IndexOf((byte)':');
        int second = first + 1 + text[(first + 1)..].IndexOf((byte)':');
        int publisher = int.Parse(text[..first], CultureInfo.InvariantCulture);
        int seq = int.Parse(text[(first + 1)..second], CultureInfo.InvariantCulture);
        if (seq != next[publisher])
        {
            Interlocked.Increment(ref _outOfOrder);
        }

        next[publisher] = seq + 1;
        int measured = seq - _warmUp;
        if (measured < 0 || measured >= _perPublisher)
        {
            return; // a warm-up text
        }

        if (_excluded is not null && _urls[member] == _excluded)
        {
            return; // the paused node's member (it gets them when the node resumes)
        }

        int at = (publisher * _perPublisher) + measured;

        long seen;
        do
        {
            seen = Volatile.Read(ref _lastReceipt[at]);
        }
        while (now > seen && Interlocked.CompareExchange(ref _lastReceipt[at], now, seen) != seen);
        Interlocked.Increment(ref _receipts[at]);
        Interlocked.Increment(ref _delivered);
    }

    /// <summary>A text of <paramref name="payload"/> bytes: <c>P:SEQ:TICKS:</c> then padding.</summary>
    public static string Text(int publisher, int seq, long ticks, int payload)
    {
        string head = string.Create(CultureInfo.InvariantCulture, $"{publisher}:{seq}:{ticks}:");
        return head.Length >= payload ? head : head + new string('x', payload - head.Length);
    }

    /// <summary>UTF-8 bytes of <see cref="Text"/> (ASCII: one byte a character).</summary>
    public static int Length(string text) => Encoding.UTF8.GetByteCount(text);
}
