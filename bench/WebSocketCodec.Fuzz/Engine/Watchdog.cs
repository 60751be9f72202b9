namespace WebSocketCodec.Fuzz;

/// <summary>
/// The hang oracle for a call that never returns (a loop inside the library, which no step guard in the driver can
/// see): a thread that watches the runner's count of inputs run, and when it stands still for
/// <see cref="Stall"/>, prints the input under way and ends the process with exit code 3.
/// </summary>
public sealed class Watchdog : IDisposable
{
    private readonly FuzzRunner _runner;
    private readonly TextWriter _log;
    private readonly Timer _timer;
    private long _last = -1;
    private DateTime _lastChange = DateTime.UtcNow;

    /// <summary>Starts watching <paramref name="runner"/>.</summary>
    public Watchdog(FuzzRunner runner, TextWriter log, ulong seed, TimeSpan stall)
    {
        _runner = runner;
        _log = log;
        Seed = seed;
        Stall = stall;
        _timer = new Timer(_ => Check(), null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
    }

    /// <summary>The run's seed, printed with a hang.</summary>
    public ulong Seed { get; }

    /// <summary>How long no input may finish before it is a hang.</summary>
    public TimeSpan Stall { get; }

    /// <inheritdoc />
    public void Dispose() => _timer.Dispose();

    private void Check()
    {
        long now = _runner.Executed;
        if (now != _last)
        {
            _last = now;
            _lastChange = DateTime.UtcNow;
            return;
        }

        if (DateTime.UtcNow - _lastChange < Stall || _runner.Current is not { } current)
        {
            return;
        }

        _log.WriteLine($"VIOLATION hang: target={current.Target} seed={Seed} index={current.Index} made no progress for {Stall.TotalSeconds} s");
        _log.WriteLine($"  input ({current.Input.Length} B): {Convert.ToHexString(current.Input)}");
        _log.Flush();
        Environment.Exit(3);
    }
}
