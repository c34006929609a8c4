from decimal import *
specs = ['', ',.2f', 'e', 'g', '%', '>10', '+08.2f', '010,', '.2e', '.2g', '.3e', '<8', '^9.1f', '*>12,.3f', '.0f', '.0%', 'E', 'G', '.1', '#.0f', '015,.2f', ' .2f', 'n', '.3', '20', '=+10']
vals = ['1234.5678', '-0.5', '12', '0', '0.000012', '0.25', '-1.5', '1E+3', '123.456', '-0', '2.665', '2.675', 'NaN', '-Inf', '99.995', '1E-10', '123456789.987654321']
for v in vals:
    out = []
    for sp in specs:
        try:
            out.append(format(Decimal(v), sp))
        except ValueError as e:
            out.append('VE')
    print(v, out)
print(f"{Decimal('19.999'):.2f}", f"{Decimal('1000000'):,}", f"{Decimal('3.14159'):10.3f}|")
for bad in ['x', '.f', '10.2q']:
    try:
        format(Decimal(1), bad)
    except ValueError as e:
        print('ValueError', e)
