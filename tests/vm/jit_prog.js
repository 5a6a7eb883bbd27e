// jit-node's program: a known call chain of named functions, fa -> fb ->
// fc -> fd, fd spending the time; prints only its result, so that runs
// with and without ustack compare byte for byte.  Argument: the rounds.
function fd(n) {
    let s = 0;
    for (let i = 0; i < n; i++)
        s += (i * i) % 7;
    return s;
}

function fc(n) {
    return fd(n) + 1;
}

function fb(n) {
    return fc(n) + 1;
}

function fa(n) {
    return fb(n) + 1;
}

const rounds = Number(process.argv[2] || 10);
let t = 0;
for (let r = 0; r < rounds; r++)
    t += fa(500000);
console.log("result " + t);
