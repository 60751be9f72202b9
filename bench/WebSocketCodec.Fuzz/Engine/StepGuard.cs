namespace WebSocketCodec.Fuzz;

/// <summary>
/// The no-hang oracle for drive loops: every call into the library is a step, a loop that makes no progress (consumes
/// nothing and does not finish) is a hang, and the steps of one input are capped at its length plus a small constant.
/// </summary>
public struct StepGuard
{
    private readonly int _limit;
    private readonly string _loop;
    private int _steps;

    /// <summary>A guard allowing <paramref name="inputLength"/> + <paramref name="slack"/> steps.</summary>
    public StepGuard(string loop, int inputLength, int slack = 16)
    {
        _loop = loop;
        _limit = inputLength + slack;
        _steps = 0;
    }

    /// <summary>Steps taken so far.</summary>
    public readonly int Steps => _steps;

    /// <summary>Counts one step; fails when the cap is passed.</summary>
    public void Step()
    {
        if (++_steps > _limit)
        {
            throw new OracleFailureException($"hang: {_loop} took more than {_limit} steps");
        }
    }

    /// <summary>Counts one step that consumed <paramref name="consumed"/> bytes without finishing; fails when it made no
    /// progress.</summary>
    public void Progress(int consumed)
    {
        Step();
        if (consumed <= 0)
        {
            throw new OracleFailureException($"hang: {_loop} consumed nothing and did not finish (step {_steps})");
        }
    }
}
