namespace WebSocketCodec.Fuzz;

/// <summary>One API under fuzz: its seed corpus and mutator, and how one input is driven through it and checked.</summary>
public interface IFuzzTarget
{
    /// <summary>The name used on the command line (<c>--target</c>) and in reports.</summary>
    string Name { get; }

    /// <summary>Makes the inputs from the seed corpus.</summary>
    Mutator Mutator { get; }

    /// <summary>Drives one input through the API and checks the oracles: throws <see cref="OracleFailureException"/> when one
    /// fails; an exception from the library propagates to the runner's exception oracle.</summary>
    /// <param name="entry">The corpus entry the input was made from (its role, for frame streams).</param>
    /// <param name="input">The input; the target copies it before anything unmasks in place.</param>
    /// <param name="context">Randomness for options and split points, and outcome counters.</param>
    void Run(CorpusEntry entry, byte[] input, FuzzContext context);

    /// <summary>The exception oracle: whether <paramref name="exception"/> is a documented outcome of the calls this
    /// target makes (the parsers document none, and the drivers only make calls the docs allow, so the targets here
    /// accept none).</summary>
    bool IsDocumented(Exception exception);
}
