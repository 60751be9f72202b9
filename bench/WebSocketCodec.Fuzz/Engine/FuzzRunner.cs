using System.Diagnostics;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// Runs inputs through targets: input <c>i</c> of a target is made and driven from its own generator
/// (<see cref="FuzzRng.ForInput"/>), so every input replays alone from (seed, target, index). Applies the exception
/// oracle, keeps the first violations of each kind, and publishes the input under way for the hang watchdog.
/// </summary>
public sealed class FuzzRunner
{
    private const int KeptPerKind = 5;

    private readonly ulong _seed;
    private readonly TextWriter? _log;
    private readonly DirectoryInfo? _violationDirectory;
    private long _executed;

    /// <summary>Creates a runner.</summary>
    /// <param name="seed">The run's seed.</param>
    /// <param name="log">Where violations and progress are printed (null: nowhere).</param>
    /// <param name="violationDirectory">Where each violation kept is written (null: not written).</param>
    public FuzzRunner(ulong seed, TextWriter? log = null, DirectoryInfo? violationDirectory = null)
    {
        _seed = seed;
        _log = log;
        _violationDirectory = violationDirectory;
    }

    /// <summary>Inputs run so far, over every target (read by the watchdog).</summary>
    public long Executed => Interlocked.Read(ref _executed);

    /// <summary>The input under way: target, index and bytes (for the watchdog's report of a hang).</summary>
    public (string Target, long Index, byte[] Input)? Current { get; private set; }

    /// <summary>Runs inputs <paramref name="first"/> to <paramref name="first"/> + <paramref name="count"/> - 1 of
    /// <paramref name="target"/>.</summary>
    public TargetResult Run(IFuzzTarget target, long count, long first = 0, CancellationToken cancellation = default)
    {
        var outcomes = new Dictionary<string, long>();
        var kinds = new Dictionary<string, long>();
        var kept = new List<FuzzViolation>();
        long violations = 0;
        var clock = Stopwatch.StartNew();
        long done = 0;
        for (long index = first; index < first + count && !cancellation.IsCancellationRequested; index++)
        {
            FuzzViolation? violation = RunOne(target, index, outcomes);
            done++;
            Interlocked.Increment(ref _executed);
            if (violation is null)
            {
                continue;
            }

            violations++;
            string kind = violation.Signature;
            kinds[kind] = kinds.TryGetValue(kind, out long n) ? n + 1 : 1;
            if (kinds[kind] <= KeptPerKind)
            {
                kept.Add(violation);
                _log?.WriteLine(violation);
                if (_violationDirectory is not null)
                {
                    _log?.WriteLine("  written to " + violation.WriteTo(_violationDirectory));
                }
            }
        }

        Current = null;
        return new TargetResult(target.Name, done, clock.Elapsed, violations, kept, kinds, outcomes);
    }

    /// <summary>Makes and runs input <paramref name="index"/> of <paramref name="target"/>; the violation, or null.</summary>
    public FuzzViolation? RunOne(IFuzzTarget target, long index, Dictionary<string, long>? outcomes = null)
    {
        ArgumentNullException.ThrowIfNull(target);
        FuzzRng rng = FuzzRng.ForInput(_seed, target.Name, index);
        (CorpusEntry entry, byte[] input) = target.Mutator.Next(rng);
        return Check(target, entry, input, rng, index, outcomes);
    }

    /// <summary>Runs one given input through <paramref name="target"/> (regression cases, tests of the oracles).</summary>
    public FuzzViolation? Check(
        IFuzzTarget target, CorpusEntry entry, byte[] input, FuzzRng rng, long index = -1, Dictionary<string, long>? outcomes = null)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(entry);
        ArgumentNullException.ThrowIfNull(input);
        Current = (target.Name, index, input);
        var context = new FuzzContext(rng, outcomes ?? []);
        string? failure;
        try
        {
            target.Run(entry, input, context);
            failure = null;
        }
        catch (OracleFailureException oracle)
        {
            failure = oracle.Message;
        }
        catch (Exception exception) when (target.IsDocumented(exception))
        {
            context.Count("documented exception " + exception.GetType().Name);
            failure = null;
        }
        catch (Exception exception)
        {
            string? where = exception.StackTrace?.Split('\n').FirstOrDefault()?.Trim();
            failure = $"undocumented exception {exception.GetType().FullName}: {exception.Message} {where}";
        }

        return failure is null ? null : new FuzzViolation(target.Name, _seed, index, entry.Name, input, failure);
    }
}
